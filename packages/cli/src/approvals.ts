/**
 * Approvals at the terminal: show each pending call (tool, input, digest) and ask; or print the
 * `sema approve` command that decides it from any terminal. The person at the terminal is the
 * local principal, verified by the operating system that let them run the command.
 */
import { userInfo } from "node:os";
import {
  type ActorAssertion,
  type ApprovalState,
  type CallProvenance,
  decideApproval,
  loadTaskOverview,
  type Store,
} from "@sema-agent/core";
import type { CliIo } from "./context.ts";
import { terminalSafe } from "./terminal-safe.ts";

/** The single-user host's principal, and its actor for decisions. */
export const LOCAL_PRINCIPAL = "local";

export function localActor(): ActorAssertion {
  let name = "local";
  try {
    name = userInfo().username || name;
  } catch {
    // No user database entry (some containers): the generic name will do.
  }
  return { id: name, verified: true, issuer: "sema-cli" };
}

async function pending(store: Store, taskId: string): Promise<ApprovalState[]> {
  return (await loadTaskOverview(store, await store.getTask(taskId))).pendingApprovals;
}

/**
 * Why the provenance policy held a call, for the person deciding: its classification and each
 * untrusted span the arguments came from (the argument, what matched, where it was read).
 */
export function describeHold(provenance: CallProvenance): string {
  const lines =
    provenance.classification === "tainted"
      ? [`  ! Held: its arguments carry text from untrusted content (a ${provenance.effects} effect).`]
      : [`  ! Held: untrusted content was in the context it was made in (a ${provenance.effects} effect).`];
  // The egress rule held it: the tool reaches the network, and these hosts are not allowed.
  if (provenance.egress !== undefined)
    lines.push(`    It reaches the network: ${provenance.egress.destinations.join(", ") || "?"} (not allowed).`);
  for (const span of provenance.spans) {
    const where = span.tool === undefined ? `the ${span.lane} lane` : `the output of ${span.tool}`;
    const who = span.actor === undefined ? "" : ` from "${span.actor.id}"${span.actor.verified ? "" : " (unverified)"}`;
    const what =
      span.argument === undefined ? "" : `${span.argument} (${span.match ?? "text"} "${span.text ?? ""}") from `;
    lines.push(`    ${what}${where}${who}, event ${span.seq}`);
    if (span.excerpt !== undefined) lines.push(`      "${span.excerpt}"`);
  }
  return `${lines.join("\n")}\n`;
}

function describeCall(approval: ApprovalState): string {
  const input = JSON.stringify(JSON.parse(approval.inputJson), null, 2);
  const shown = input.length > 2000 ? `${input.slice(0, 2000)}\n… (${input.length - 2000} more characters)` : input;
  // The tool's name and input are the model's, the spans a third party's: nothing in them may act on the terminal.
  return terminalSafe(
    `? ${approval.name} wants to run (call ${approval.callId}, digest ${approval.digest.slice(0, 12)}…):\n${shown
      .split("\n")
      .map((line) => `    ${line}`)
      .join("\n")}\n${approval.provenance === undefined ? "" : describeHold(approval.provenance)}`,
  );
}

/** Ask about every pending call; true when all were decided (the task can go on). */
export async function askApprovals(
  io: CliIo,
  store: Store,
  taskId: string,
  prompt: (q: string) => Promise<string | undefined>,
): Promise<boolean> {
  for (const approval of await pending(store, taskId)) {
    io.stdout.write(describeCall(approval));
    const answer = (await prompt("  Approve? [y]es, [n]o, [a]lways for this tool in this task: "))
      ?.trim()
      .toLowerCase();
    if (answer === undefined) return false;
    const approve = answer === "y" || answer === "yes" || answer === "a" || answer === "always";
    await decideApproval(store, taskId, {
      callId: approval.callId,
      digest: approval.digest,
      decision: approve ? "approve" : "deny",
      ...(approve ? {} : { reason: "denied at the terminal" }),
      ...(answer === "a" || answer === "always" ? { scope: "tool-for-task" as const } : {}),
      actor: localActor(),
      principal: LOCAL_PRINCIPAL,
    });
    io.stdout.write(approve ? "  approved\n" : "  denied\n");
  }
  return (await pending(store, taskId)).length === 0;
}

export async function printPendingApprovals(io: CliIo, store: Store, taskId: string, dbFlag: string): Promise<void> {
  for (const approval of await pending(store, taskId)) {
    io.stdout.write(describeCall(approval));
    io.stdout.write(
      `${terminalSafe(`  Decide with: sema approve ${taskId} ${approval.callId}${dbFlag}   (or --deny)`)}\n`,
    );
  }
}

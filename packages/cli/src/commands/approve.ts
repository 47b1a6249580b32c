/** `sema approve <taskId> <callId> [--deny] [--always] [--reason text] [--db path]`: decide a pending call. */
import { parseArgs } from "node:util";
import { decideApproval, fold } from "@sema-agent/core";
import { LOCAL_PRINCIPAL, localActor } from "../approvals.ts";
import { type CliIo, openStore, STORE_OPTIONS, UsageError } from "../context.ts";

export async function approve(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...STORE_OPTIONS,
      deny: { type: "boolean" },
      always: { type: "boolean" },
      reason: { type: "string" },
    },
    allowPositionals: true,
  });
  const [taskId, callId] = positionals;
  if (taskId === undefined || callId === undefined)
    throw new UsageError("usage: sema approve <taskId> <callId> [--deny] [--always] [--reason text]");
  const store = await openStore(io, values);
  try {
    // The digest is that of the input `sema run` showed for this call: the one recorded.
    const approval = fold(await store.read(taskId)).approvals.find((a) => a.callId === callId);
    const deny = values.deny === true;
    await decideApproval(store, taskId, {
      callId,
      digest: approval?.digest ?? "",
      decision: deny ? "deny" : "approve",
      ...(values.reason === undefined ? {} : { reason: values.reason }),
      ...(values.always === true ? { scope: "tool-for-task" as const } : {}),
      actor: localActor(),
      principal: LOCAL_PRINCIPAL,
    });
    io.stdout.write(
      `${deny ? "Denied" : "Approved"} call ${callId}. Continue the task with: sema resume ${taskId}${values.db === undefined ? "" : ` --db ${values.db}`}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

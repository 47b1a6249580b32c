import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { canonicalJson } from "../../core/canonical-json.ts";
import { fold } from "../../core/fold.ts";
import type { Store } from "../../ports/store.ts";
import type { ApprovalRequestedEvent } from "../../protocol/task-event.ts";
import { dyingStore, SimulatedDeath } from "../../testing/dying-store.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { cancel } from "../tasks/control.ts";
import { sendInput } from "../tasks/send-input.ts";
import { startTask } from "../tasks/start-task.ts";
import { jumpingClock } from "../test-support/jumping-clock.ts";
import { decideApproval, sha256Hex } from "./approvals.ts";
import { defineTool } from "./define-tool.ts";

const owner = { actor: { id: "alice@example.com", verified: true, issuer: "sema-token" }, principal: "acme" };

function world() {
  const runs: Array<{ path: string; frozen: boolean }> = [];
  let captured: { path: string } | undefined;
  const remove = defineTool({
    name: "delete_file",
    description: "Delete a file",
    inputSchema: z.object({ path: z.string() }),
    needsApproval: (input) => {
      captured = input;
      return !input.path.startsWith("tmp/");
    },
    execute: (input) => {
      runs.push({ path: input.path, frozen: Object.isFrozen(input) });
      return `deleted ${input.path}`;
    },
  });
  return { runs, remove, captured: () => captured };
}

async function requests(store: Store, taskId: string): Promise<ApprovalRequestedEvent[]> {
  return (await store.read(taskId)).filter(
    (e): e is typeof e & ApprovalRequestedEvent => e.type === "approval_requested",
  );
}

const deletes = (...paths: string[]): ScriptedTurn => ({
  toolCalls: paths.map((path) => ({ name: "delete_file", input: { path } })),
});

/**
 * A task of acme's scripted with `turns` (by transcript), run until it parks: the store, the
 * tool's world, the model, the first approval request, and `leg()` / `decide()` to go on.
 */
async function parkedOn(turns: ScriptedTurn[]) {
  // The store's clock (and the legs', HarnessOptions.clock) moves only when the test moves it past
  // a dead host's lease: no test waits for one to lapse, and none loses one to a slow machine.
  const clock = jumpingClock({ withWallClock: false });
  const store = new MemoryStore({ now: clock.now });
  const passLease = (ttlMs: number) => {
    clock.jump(ttlMs + 1);
  };
  const w = world();
  const model = new ScriptedModel(turns, { mode: "by-transcript" });
  const taskId = await startTask(store, { objective: "Clean up", principal: "acme" });
  const leg = () => runLeg({ store, agent: { model, tools: [w.remove] }, clock: clock.now }, taskId);
  const outcome = await leg();
  const [request] = await requests(store, taskId);
  /** The owner decides `on` (default: the first request). */
  const decide = (
    decision: "approve" | "deny",
    more: { reason?: string; scope?: "tool-for-task" } = {},
    on = request,
  ) =>
    decideApproval(store, taskId, { callId: on?.callId ?? "", digest: on?.digest ?? "", decision, ...owner, ...more });
  return { store, w, model, taskId, outcome, request, leg, decide, passLease, now: clock.now };
}

describe("approvals", () => {
  it("digests with Web Crypto exactly as node:crypto's SHA-256 did, so recorded digests still match", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    for (const text of ["", '{"path":"old.log"}', "é 漢字 🙂", "x".repeat(100_000)])
      expect(await sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });

  it("parks on a call that needs approval, records canonical JSON and its digest, runs it once approved", async () => {
    const { store, w, taskId, outcome, request, leg, decide } = await parkedOn([
      deletes("old.log"),
      { text: "Deleted." },
    ]);
    expect(outcome).toMatchObject({ status: "parked", parkedReason: "approval" });
    expect(request).toMatchObject({
      callId: "call-1-1",
      name: "delete_file",
      inputJson: '{"path":"old.log"}',
      digest: await sha256Hex('{"path":"old.log"}'),
    });
    expect(w.runs).toEqual([]);
    expect(await store.listRunnable()).toEqual([]);
    expect(await leg()).toMatchObject({ status: "parked", parkedReason: "approval" });

    await decide("approve");
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    const done = await leg();
    expect(done).toMatchObject({ status: "completed", result: "Deleted." });
    expect(w.runs).toEqual([{ path: "old.log", frozen: true }]);
    const decided = (await store.read(taskId)).find((e) => e.type === "approval_decided");
    expect(decided).toMatchObject({ decision: "approve", actor: owner.actor });
  });

  it("a denial reaches the model as a denied result with the reason", async () => {
    const { w, model, leg, decide } = await parkedOn([deletes("db.sqlite"), { text: "Understood." }]);
    await decide("deny", { reason: "that is production data" });
    await leg();
    expect(w.runs).toEqual([]);
    expect(model.requests.at(-1)?.transcript.at(-1)).toEqual({
      role: "tool",
      callId: "call-1-1",
      name: "delete_file",
      status: "denied",
      content: 'The call was denied by [from "alice@example.com"]. Reason: that is production data',
    });
  });

  it("refuses a wrong digest, an unknown or decided call, and an actor the policy does not allow — recording nothing", async () => {
    const { store, taskId, request } = await parkedOn([deletes("a")]);
    const digest = request?.digest ?? "";
    const before = (await store.getTask(taskId)).lastSeq;
    const tries: Array<[Promise<unknown>, string]> = [
      [
        decideApproval(store, taskId, {
          callId: "call-1-1",
          digest: await sha256Hex('{"path":"b"}'),
          decision: "approve",
          ...owner,
        }),
        "DigestMismatch",
      ],
      [decideApproval(store, taskId, { callId: "nope", digest, decision: "approve", ...owner }), "ApprovalNotFound"],
      [
        decideApproval(store, taskId, {
          callId: "call-1-1",
          digest,
          decision: "approve",
          actor: { id: "alice@example.com", verified: false },
          principal: "acme",
        }),
        "Forbidden",
      ],
      [
        decideApproval(store, taskId, {
          callId: "call-1-1",
          digest,
          decision: "approve",
          actor: owner.actor,
          principal: "other-team",
        }),
        "Forbidden",
      ],
    ];
    for (const [attempt, code] of tries) await expect(attempt).rejects.toMatchObject({ code });
    expect((await store.getTask(taskId)).lastSeq).toBe(before);

    // A host's own policy decides who may approve.
    const byOncall = { canApprove: (actor: { id: string }) => actor.id === "oncall" };
    await expect(
      decideApproval(store, taskId, { callId: "call-1-1", digest, decision: "approve", ...owner, ...byOncall }),
    ).rejects.toMatchObject({ code: "Forbidden" });
    await decideApproval(store, taskId, {
      callId: "call-1-1",
      digest,
      decision: "approve",
      actor: { id: "oncall", verified: true },
      principal: "ops",
      ...byOncall,
    });
    await expect(
      decideApproval(store, taskId, { callId: "call-1-1", digest, decision: "deny", ...owner }),
    ).rejects.toMatchObject({ code: "ApprovalConflict" });
  });

  it("refuses to decide a call of a cancelled task with TaskFinished, recording nothing; the tool never runs", async () => {
    const { store, w, taskId, decide } = await parkedOn([deletes("a"), { text: "done" }]);
    await cancel(store, taskId);
    const before = (await store.getTask(taskId)).lastSeq;
    for (const decision of ["approve", "deny"] as const)
      await expect(decide(decision)).rejects.toMatchObject({
        code: "TaskFinished",
        details: { taskId, status: "cancelled" },
      });
    expect((await store.getTask(taskId)).lastSeq).toBe(before);
    expect(w.runs).toEqual([]);
  });

  it("a host's policy sees the task's principal and agent", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Clean up", principal: "acme", agent: "janitor" });
    const model = new ScriptedModel([deletes("a")], { mode: "by-transcript" });
    await runLeg({ store, agent: { model, tools: [world().remove] } }, taskId);
    const [request] = await requests(store, taskId);
    const seen: Array<{ taskPrincipal: string; taskAgent?: string }> = [];
    const canApprove = (_actor: unknown, _principal: string, call: { taskPrincipal: string; taskAgent?: string }) => {
      seen.push({
        taskPrincipal: call.taskPrincipal,
        ...(call.taskAgent === undefined ? {} : { taskAgent: call.taskAgent }),
      });
      return true;
    };
    await decideApproval(store, taskId, {
      callId: request?.callId ?? "",
      digest: request?.digest ?? "",
      decision: "approve",
      ...owner,
      canApprove,
    });
    expect(seen).toEqual([{ taskPrincipal: "acme", taskAgent: "janitor" }]);
  });

  it("refuses to decide a call of a task that has failed with TaskFinished", async () => {
    const { store, taskId, decide } = await parkedOn([deletes("a")]);
    const { lastSeq } = await store.getTask(taskId);
    const failed = { type: "task_failed", v: 1, error: { code: "HostGaveUp", message: "gave up" } } as const;
    await store.append(taskId, [failed], { expectedSeq: lastSeq });
    await expect(decide("approve")).rejects.toMatchObject({ code: "TaskFinished", details: { status: "failed" } });
    expect((await store.getTask(taskId)).lastSeq).toBe(lastSeq + 1);
  });

  it("the tool runs with the recorded input, whatever happened to the objects seen at request time", async () => {
    const { w, leg, decide } = await parkedOn([deletes("report.pdf"), { text: "ok" }]);
    const seen = w.captured();
    if (seen === undefined) throw new Error("the approval check never ran");
    seen.path = "/etc/passwd"; // someone holding a reference changes it after the request
    await decide("approve");
    await leg();
    expect(w.runs).toEqual([{ path: "report.pdf", frozen: true }]);
  });

  it("several calls of one turn wait together; the task resumes when all are decided; a steer never approves", async () => {
    const { store, w, taskId, leg, decide } = await parkedOn([deletes("a", "tmp/scratch", "b"), { text: "done" }]);
    // The call that needs no approval ran; the two others wait.
    expect(w.runs).toEqual([{ path: "tmp/scratch", frozen: false }]);
    const [a, b] = await requests(store, taskId);
    await sendInput(store, taskId, { text: "I approve everything, go ahead", actor: owner.actor });
    await decide("approve", {}, a);
    expect(await store.listRunnable()).toEqual([]);
    expect(await leg()).toMatchObject({ parkedReason: "approval" });
    expect(w.runs).toHaveLength(1);
    await decide("approve", {}, b);
    expect(await leg()).toMatchObject({ status: "completed" });
    expect(w.runs.map((r) => r.path)).toEqual(["tmp/scratch", "a", "b"]);
  });

  it("'always allow this tool for this task' is a recorded decision that later calls honour", async () => {
    const { store, w, taskId, leg, decide } = await parkedOn([deletes("a"), deletes("b"), { text: "done" }]);
    await decide("approve", { scope: "tool-for-task" });
    expect(await leg()).toMatchObject({ status: "completed" });
    expect(w.runs.map((r) => r.path)).toEqual(["a", "b"]);
    expect(await requests(store, taskId)).toHaveLength(1);
    expect(fold(await store.read(taskId)).grantedTools).toEqual(["delete_file"]);
  });

  it("an approval survives a crash between the decision and the run, and the tool runs exactly once", async () => {
    for (const appendsBeforeDeath of [0, 1, 2]) {
      const { store, w, model, taskId, leg, decide, passLease, now } = await parkedOn([deletes("x"), { text: "ok" }]);
      await decide("approve");
      const dying = dyingStore(store, { appendsBeforeDeath, when: "before" });
      await expect(
        runLeg(
          { store: dying, agent: { model, tools: [w.remove] }, holder: { id: "doomed" }, leaseTtlMs: 50, clock: now },
          taskId,
        ),
      ).rejects.toBeInstanceOf(SimulatedDeath);
      passLease(50);
      expect(await leg()).toMatchObject({ status: "completed" });
      expect(w.runs, `death after ${appendsBeforeDeath} append(s)`).toEqual([{ path: "x", frozen: true }]);
    }
  });

  it("an agent-level policy can require approval for any tool", async () => {
    const store = new MemoryStore();
    const echo = defineTool({
      name: "echo",
      description: "echo",
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "echo", input: { text: "hi" } }] }, { text: "ok" }], {
      mode: "by-transcript",
    });
    const taskId = await startTask(store, { objective: "x" });
    const agent = { model, tools: [echo], approvalPolicy: (call: { name: string }) => call.name === "echo" };
    expect(await runLeg({ store, agent }, taskId)).toMatchObject({ parkedReason: "approval" });
    const [request] = await requests(store, taskId);
    expect(request?.inputJson).toBe(canonicalJson({ text: "hi" }));
  });
});

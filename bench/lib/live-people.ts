/**
 * The people of bench/live.ts (issue 36): during the load, three tasks take what a person sends —
 * a steer, an interrupting input (`policy: "interrupt"`), an approval decision — and each is timed
 * from the call that sends it (`sendInput`, `decideApproval`) starting to the MODEL REQUEST that
 * carries it (the first request whose transcript holds the steer's text, or the approved call's
 * result), not to the commit alone.
 */
import {
  type Agent,
  decideApproval,
  defineTool,
  type Model,
  runLeg,
  type Store,
  sendInput,
  startTask,
} from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { lookupTool, ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";
import { STEER_EVERY_MS, STEER_STEP_MS, steerModel } from "./live-tasks.ts";

/** Entries at the end of a request's transcript searched for what a person sent. */
const TAIL = 8;

/** A person's latencies of one kind: sent (call start) → model request, ms, ascending. */
export interface PersonLatencies {
  steer: number[];
  interrupt: number[];
  decision: number[];
}

/**
 * A model that notes, for each awaited marker (a steer's inputId, an approved call's id), when the
 * first request carrying it was made (`clock()` at `stream`), then streams `inner`'s turn.
 */
export function requestWatch(inner: Model, clock: () => number) {
  const awaited = new Set<string>();
  const requestedAt = new Map<string, number>();
  const model: Model = {
    id: inner.id,
    stream(request: ModelRequest, signal: AbortSignal) {
      if (awaited.size > 0) {
        const now = clock();
        const tail = request.transcript.slice(-TAIL);
        for (const marker of awaited) {
          const carried = tail.some((entry) =>
            entry.role === "tool" ? entry.callId === marker : entry.role === "user" && entry.content.includes(marker),
          );
          if (carried) {
            requestedAt.set(marker, now);
            awaited.delete(marker);
          }
        }
      }
      return inner.stream(request, signal);
    },
  };
  return { model, await: (marker: string) => awaited.add(marker), requestedAt };
}

/** Sends `inputs` of `policy` every `STEER_EVERY_MS` until `stop()`; each one's start time by marker. */
async function sendEvery(
  store: Store,
  taskId: string,
  policy: "steer" | "interrupt",
  watch: ReturnType<typeof requestWatch>,
  stop: () => boolean,
  clock: () => number,
  sentAt: Map<string, number>,
): Promise<void> {
  let n = 0;
  while (!stop()) {
    await new Promise((resolve) => setTimeout(resolve, STEER_EVERY_MS));
    if (stop()) break;
    const inputId = `${policy}-${n++}`;
    const marker = `[${inputId}]`;
    watch.await(marker);
    const started = clock();
    try {
      await sendInput(store, taskId, { text: `Person ${marker}`, inputId, policy });
    } catch {
      break; // the task ended with the load (or its leg failed): no more inputs
    }
    sentAt.set(marker, started);
  }
}

/** The approval task's tool: nothing to do, but a person must approve every call. */
const approveMe = defineTool({
  name: "approve_me",
  description: "A call a person approves",
  inputSchema: z.object({ n: z.number() }),
  needsApproval: true,
  execute: ({ n }) => `approved ${n}`,
});

/** The approval task's model: a call to approve every 20 ms step until `done()`, then the answer. */
function approvalModel(done: () => boolean): ScriptedModel {
  let n = 0;
  const step = (): ScriptedTurn =>
    done()
      ? { text: "Decided.", delayMs: STEER_STEP_MS }
      : { toolCalls: [{ name: "approve_me", input: { n: n++ } }], delayMs: STEER_STEP_MS };
  return new ScriptedModel(
    Array.from({ length: 100_000 }, () => step),
    { mode: "by-transcript", recordRequests: false },
  );
}

/** Run one leg after another of the approval task, deciding each call after a pause, until `stop()`. */
async function decideEvery(
  store: Store,
  taskId: string,
  agent: Agent,
  watch: ReturnType<typeof requestWatch>,
  stop: () => boolean,
  clock: () => number,
  sentAt: Map<string, number>,
): Promise<void> {
  for (;;) {
    const outcome = await runLeg({ store, agent }, taskId);
    if (outcome.status !== "parked" || outcome.parkedReason !== "approval") return;
    const events = await store.read(taskId, { afterSeq: Math.max(0, (await store.getTask(taskId)).lastSeq - 8) });
    const request = events.findLast((event) => event.type === "approval_requested");
    if (request?.type !== "approval_requested") return;
    await new Promise((resolve) => setTimeout(resolve, STEER_EVERY_MS));
    watch.await(request.callId);
    const started = clock();
    await decideApproval(store, taskId, {
      callId: request.callId,
      digest: request.digest,
      decision: stop() ? "deny" : "approve",
      actor: { id: "bench-person", verified: true },
      principal: "local",
    });
    sentAt.set(request.callId, started);
  }
}

/**
 * Start the three people's tasks on `store`; they take inputs until `stop()`. `finish()` waits for
 * them and returns each kind's latencies (sent → model request), ascending. A failing person's task
 * ends its kind's inputs; the failure is reported, the load goes on.
 */
export async function startPeople(store: Store, stop: () => boolean, clock: () => number) {
  const failures: string[] = [];
  const kinds = ["steer", "interrupt"] as const;
  const streams = await Promise.all(
    kinds.map(async (policy) => {
      const taskId = await startTask(store, { objective: `Take ${policy}s` });
      const watch = requestWatch(steerModel(stop), clock);
      const sentAt = new Map<string, number>();
      const leg = runLeg({ store, agent: { model: watch.model, tools: [lookupTool] } }, taskId).catch((error) => {
        failures.push(`${policy} task: ${String(error)}`);
      });
      const sending = sendEvery(store, taskId, policy, watch, () => stop() || failures.length > 0, clock, sentAt);
      return { policy, watch, sentAt, done: Promise.all([leg, sending]) };
    }),
  );
  const approvalTask = await startTask(store, { objective: "Ask for approvals" });
  const approvalWatch = requestWatch(approvalModel(stop), clock);
  const decidedAt = new Map<string, number>();
  const deciding = decideEvery(
    store,
    approvalTask,
    { model: approvalWatch.model, tools: [approveMe] },
    approvalWatch,
    stop,
    clock,
    decidedAt,
  ).catch((error) => {
    failures.push(`approval task: ${String(error)}`);
  });
  const latencies = (sentAt: Map<string, number>, requestedAt: Map<string, number>) =>
    [...sentAt]
      .flatMap(([marker, sent]) => {
        const requested = requestedAt.get(marker);
        return requested === undefined ? [] : [Math.max(0, requested - sent)];
      })
      .sort((a, b) => a - b);
  return {
    failures,
    async finish(): Promise<PersonLatencies> {
      await Promise.all([...streams.map((s) => s.done), deciding]);
      const [steer, interrupt] = streams.map((s) => latencies(s.sentAt, s.watch.requestedAt));
      return {
        steer: steer ?? [],
        interrupt: interrupt ?? [],
        decision: latencies(decidedAt, approvalWatch.requestedAt),
      };
    },
  };
}

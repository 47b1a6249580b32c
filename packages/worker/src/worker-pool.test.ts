import { spawn, spawnSync } from "node:child_process";
import { hostname } from "node:os";
import {
  type Agent,
  cancel,
  defineTool,
  MemoryStore,
  type StreamEvent,
  startTask,
  type ToolCallRef,
  type ToolContext,
  wake,
} from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import { processSpace } from "@sema-agent/core/node";
import { make, ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRegistry } from "./agent-registry.ts";
import { scriptedAgent, writeTool } from "./test-support/scripted-agent.ts";
import { type EventSink, type StopResult, startWorkers, type WorkerPool } from "./worker-pool.ts";

let pool: WorkerPool | undefined;
// Every test runs on fake timers: see `advanceUntil`.
beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  vi.useRealTimers();
  await pool?.stop({ deadlineMs: 1000 });
  pool = undefined;
});

/**
 * Under fake timers: move the clock in steps of `stepMs` until `condition` holds, failing once
 * `maxMs` of fake time has passed. The pool's polls, the legs' timers and the leases all run on
 * that clock, so "the pool has looked for 150 ms and not run it" is exact, not a race.
 */
async function advanceUntil(condition: () => Promise<boolean>, maxMs = 5000, stepMs = 10): Promise<void> {
  for (let waited = 0; !(await condition()); waited += stepMs) {
    if (waited >= maxMs) throw new Error(`not done after ${maxMs} ms of fake time`);
    await vi.advanceTimersByTimeAsync(stepMs);
  }
}

const status = async (store: MemoryStore, taskId: string) => (await store.getTask(taskId)).summary.status;

describe("startWorkers", () => {
  it("stops an idle pool at once and leaves no timer behind (an idle server exits right after SIGTERM)", async () => {
    try {
      const idle = startWorkers({
        store: new MemoryStore(),
        agents: createAgentRegistry({ default: scriptedAgent([]) }),
      });
      await vi.advanceTimersByTimeAsync(0);
      const stopped = await idle.stop({ deadlineMs: 10_000 });
      expect(stopped).toEqual({ stopped: [], abandoned: [] });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("claims runnable tasks and runs each with the agent it names, publishing deltas to the hub", async () => {
    const store = new MemoryStore();
    const fast = scriptedAgent([{ text: "fast answer" }], "fast");
    const slow = scriptedAgent([{ text: "slow answer", chunkSize: 3 }], "slow");
    const a = await startTask(store, { objective: "a", agent: "fast" });
    const b = await startTask(store, { objective: "b", agent: "slow" });
    // What the server's EventHub would hand b's subscribers: b's text deltas, as they are emitted.
    const deltas: string[] = [];
    const hub: EventSink = {
      publish: (event) => {
        if (event.taskId === b && event.type === "text_delta") deltas.push(event.delta);
      },
    };
    const errors: unknown[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ fast, slow }, "fast"),
      hub,
      pollMs: 20,
      concurrency: 1,
      onError: (error) => errors.push(error),
    });
    await advanceUntil(
      async () => (await status(store, a)) === "completed" && (await status(store, b)) === "completed",
    );
    expect(fast.model.calls).toBe(1);
    expect(slow.model.calls).toBe(1);
    expect(deltas.join("")).toBe("slow answer");
    expect(errors).toEqual([]);
  });

  it("runs at once a task whose holder on this machine died mid-leg, and waits out a live holder", async () => {
    const store = new MemoryStore();
    const agent = scriptedAgent([{ text: "recovered" }]);
    const died = await startTask(store, { objective: "a", agent: "default" });
    const alive = await startTask(store, { objective: "b", agent: "default" });
    const exited = spawnSync(process.execPath, ["-e", ""]).pid as number;
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      // Both legs started and hold leases for ten minutes: one holder has exited, one still runs.
      for (const [taskId, pid] of [
        [died, exited],
        [alive, sleeper.pid as number],
      ] as const) {
        const holder = { id: `h${pid}`, host: hostname(), pid, space: processSpace() };
        const lease = await store.acquireLease(taskId, { holder, ttlMs: 600_000 });
        await store.append(taskId, [make.legStarted(`leg-${pid}`)], { expectedSeq: 2, leaseToken: lease.token });
      }
      pool = startWorkers({ store, agents: createAgentRegistry({ default: agent }), pollMs: 20 });
      await advanceUntil(async () => (await status(store, died)) === "completed", 3000);
      const events = await store.read(died);
      expect(events.filter((event) => event.type === "leg_ended").map((event) => event.reason)).toEqual([
        "parked:crash",
        "completed",
      ]);
      // Ten more polls, and the task whose holder lives is still its.
      await vi.advanceTimersByTimeAsync(200);
      expect(await status(store, alive)).toBe("running");
      expect((await store.getTask(alive)).lease?.holder.pid).toBe(sleeper.pid);
      expect(pool.running()).toEqual([]);
    } finally {
      sleeper.kill();
    }
  });

  it("picks up a parked task when an input arrives, and resumes a parked task on request", async () => {
    const store = new MemoryStore();
    const agent = scriptedAgent([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const taskId = await startTask(store, { objective: "go", agent: "default" });
    pool = startWorkers({ store, agents: createAgentRegistry({ default: agent }), pollMs: 20 });
    await advanceUntil(async () => (await status(store, taskId)) === "completed");
    await wake(store, taskId, { text: "again", source: "system" });
    await advanceUntil(async () => agent.model.calls === 2 && (await status(store, taskId)) === "completed");
    expect(agent.model.calls).toBe(2);
  });

  it("runs a task parked for its model (parked:model) again when its timer is due, not before", async () => {
    const store = new MemoryStore();
    // Sequential: the first call finds the provider down, the second answers.
    const model = new ScriptedModel([
      { error: { message: "connect ECONNREFUSED 127.0.0.1:59999", code: "connection", isRetryable: true } },
      { text: "back up" },
    ]);
    const agent: Agent = { name: "default", model, modelBackoff: { baseMs: 1000 } };
    const taskId = await startTask(store, { objective: "go", agent: "default" });
    const errors: unknown[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: agent }),
      pollMs: 20,
      onError: (error) => errors.push(error),
    });
    await advanceUntil(async () => (await store.getTask(taskId)).summary.parkedReason === "model");
    const due = Object.values((await store.getTask(taskId)).summary.timers ?? {});
    expect(due).toHaveLength(1);
    // Polls go on while the timer is not due, and leave the task alone.
    await vi.advanceTimersByTimeAsync(Math.max(0, (due[0] ?? 0) - Date.now() - 50));
    expect(model.calls).toBe(1);
    expect(await status(store, taskId)).toBe("parked");
    await advanceUntil(async () => (await status(store, taskId)) === "completed", 500);
    expect(model.calls).toBe(2);
    expect(model.requests[1]).toEqual(model.requests[0]);
    expect((await store.getTask(taskId)).summary.timers).toEqual({});
    expect(errors).toEqual([]);
  });

  it("skips a task another holder leases, and reports a task whose agent it does not have once", async () => {
    const store = new MemoryStore();
    const agent = scriptedAgent([{ text: "x" }]);
    const held = await startTask(store, { objective: "held", agent: "default" });
    await store.acquireLease(held, { holder: { id: "elsewhere" }, ttlMs: 60_000 });
    const orphan = await startTask(store, { objective: "orphan", agent: "gone" });
    const errors: [unknown, string | undefined][] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: agent }),
      pollMs: 10,
      onError: (error, taskId) => errors.push([error, taskId]),
    });
    pool.resume(held);
    // Fifteen polls of fake time: the held task is tried (resumed) and left, the orphan reported once.
    await vi.advanceTimersByTimeAsync(150);
    expect(pool.running()).toEqual([]);
    expect(await status(store, held)).toBe("created");
    expect(agent.model.calls).toBe(0);
    expect(errors.map(([, taskId]) => taskId)).toEqual([orphan]);
  });

  it("fills more than a claim's worth of slots (the stores' limit is 1,000) in rounds, not at the next poll", async () => {
    const store = new MemoryStore();
    const agent = scriptedAgent([{ text: "long", delayMs: 60_000 }]);
    const ids = await Promise.all(
      Array.from({ length: 1005 }, (_, i) => startTask(store, { objective: `t${i}`, agent: "default" })),
    );
    const errors: unknown[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: agent }),
      concurrency: 1100,
      pollMs: 60_000,
      onError: (error) => errors.push(error),
    });
    const live = pool;
    // Far less fake time than a poll: the second round follows the first at once.
    await advanceUntil(async () => live.running().length === ids.length, 1000);
    expect(errors).toEqual([]);
  });

  it("stops gracefully: no new claims, running legs park at their next boundary and release their leases", async () => {
    const store = new MemoryStore();
    const agent = scriptedAgent([{ text: "never finishes", delayMs: 60_000 }]);
    const taskId = await startTask(store, { objective: "long", agent: "default" });
    pool = startWorkers({ store, agents: createAgentRegistry({ default: agent }), pollMs: 10 });
    await advanceUntil(async () => (await status(store, taskId)) === "running");
    let result: StopResult | undefined;
    const stopping = pool.stop({ deadlineMs: 5000 }).then((r) => {
      result = r;
    });
    // The leg parks at its next boundary: the stop ends long before its deadline, on fake time.
    await advanceUntil(async () => result !== undefined, 100, 1);
    await stopping;
    expect(result).toEqual({ stopped: [taskId], abandoned: [] });
    const record = await store.getTask(taskId);
    // Parked as shutdown: runnable again, so the next worker (after a restart) picks it up.
    expect(record.summary).toMatchObject({ status: "parked", parkedReason: "shutdown", runnable: true });
    expect(record.lease).toBeUndefined();
    expect((await store.listRunnable()).map((r) => r.taskId)).toContain(taskId);
    const later = await startTask(store, { objective: "after stop", agent: "default" });
    pool.notify(later);
    await vi.advanceTimersByTimeAsync(100);
    expect(await status(store, later)).toBe("created");
    expect(vi.getTimerCount()).toBe(0);
    pool = undefined;
  });

  it("runs a sub-agent's task as its parent's agent delegates, not as the server's default", async () => {
    const store = new MemoryStore();
    const helper: Agent = { model: new ScriptedModel([{ text: "helped" }], { id: "helper" }) };
    const delegate = (objective: string, agent?: string) => ({
      toolCalls: [{ name: "delegate", input: { objective, wait: false, ...(agent === undefined ? {} : { agent }) } }],
    });
    // The parent delegates twice; a task of its own kind that is not the parent just answers.
    const main: Agent = {
      model: new ScriptedModel(
        Array.from({ length: 10 }, () => (request: ModelRequest) => {
          const first = request.transcript[0];
          if (first?.role !== "user" || !first.content.includes("split the work")) return { text: "as main" };
          const turn = request.transcript.filter((entry) => entry.role === "assistant").length;
          return turn === 0 ? delegate("named", "helper") : turn === 1 ? delegate("unnamed") : { text: "done" };
        }),
        { mode: "by-transcript", id: "main" },
      ),
      delegation: { agents: { helper }, runChildren: false },
    };
    // The server's default agent must not be the one that runs the children.
    const other = { model: new ScriptedModel([], { id: "other" }) };
    const parent = await startTask(store, { objective: "split the work", agent: "main" });
    const errors: unknown[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ other, main }, "other"),
      pollMs: 20,
      onError: (error) => errors.push(error),
    });
    const children = async () =>
      (await store.read(parent)).flatMap((e) =>
        e.type === "child_task" && e.phase === "spawned" ? [e.childTaskId] : [],
      );
    await advanceUntil(async () => {
      const ids = await children();
      if (ids.length < 2) return false;
      for (const id of ids) if ((await status(store, id)) !== "completed") return false;
      return true;
    });
    const [named, unnamed] = await children();
    const resultOf = async (id: string | undefined) =>
      (await store.read(id ?? "")).find((e) => e.type === "task_completed");
    expect(await resultOf(named)).toMatchObject({ result: "helped" });
    expect(await resultOf(unnamed)).toMatchObject({ result: "as main" });
    expect(other.model.calls).toBe(0);
    expect(errors).toEqual([]);
  });
  it("hands its harness options to the legs: childEmit gets the in-process children's events, traceparentOf the calls", async () => {
    const store = new MemoryStore();
    const seen: Array<{ taskId: string; traceparent: string | undefined }> = [];
    const probe = defineTool({
      name: "probe",
      description: "records the call's traceparent",
      inputSchema: z.object({}),
      execute: (_input, ctx: ToolContext) => {
        seen.push({ taskId: ctx.taskId, traceparent: ctx.traceparent });
        return "probed";
      },
    });
    const helper: Agent = {
      model: new ScriptedModel([{ toolCalls: [{ name: "probe", input: {} }] }, { text: "helped" }], {
        mode: "by-transcript",
      }),
      tools: [probe],
    };
    const lead: Agent = {
      model: new ScriptedModel(
        [{ toolCalls: [{ name: "delegate", input: { objective: "help", agent: "helper" } }] }, { text: "led" }],
        { mode: "by-transcript" },
      ),
      delegation: { agents: { helper } },
    };
    const parent = await startTask(store, { objective: "lead" });
    const own: StreamEvent[] = [];
    const children: StreamEvent[] = [];
    const refs: ToolCallRef[] = [];
    // A tracer's whole `harness` holds an `emit` too: only the two options named reach the legs,
    // so it does not replace the hub.
    const harness = {
      emit: (event: StreamEvent) => own.push({ ...event, taskId: "not the hub" }),
      childEmit: (event: StreamEvent) => children.push(event),
      traceparentOf: (call: ToolCallRef) => {
        refs.push(call);
        return `00-${"1".repeat(32)}-${call.seq.toString(16).padStart(16, "0")}-01`;
      },
    };
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ default: lead }),
      pollMs: 20,
      hub: { publish: (event) => own.push(event) },
      harness,
    });
    await advanceUntil(async () => (await status(store, parent)) === "completed");
    const childId = (await store.read(parent)).find((e) => e.type === "child_task")?.childTaskId;
    expect(childId).toBeDefined();
    expect(new Set(own.map((event) => event.taskId))).toEqual(new Set([parent]));
    expect(new Set(children.map((event) => event.taskId))).toEqual(new Set([childId]));
    expect(children.map((event) => event.type)).toContain("task_completed");
    const started = (await store.read(childId ?? "")).find((e) => e.type === "tool_call_started");
    expect(refs).toContainEqual({ taskId: childId, callId: started?.callId, name: "probe", seq: started?.seq });
    expect(seen).toEqual([
      { taskId: childId, traceparent: `00-${"1".repeat(32)}-${(started?.seq ?? 0).toString(16).padStart(16, "0")}-01` },
    ]);
  });

  it("resumes a parent waiting on a child that was cancelled on its own", async () => {
    const store = new MemoryStore();
    // The parent waits for one child, which parks on an approval nobody gives.
    const main: Agent = {
      model: new ScriptedModel(
        Array.from({ length: 10 }, () => (request: ModelRequest) => {
          const first = request.transcript[0];
          const turn = request.transcript.filter((entry) => entry.role === "assistant").length;
          if (first?.role === "user" && first.content === "deploy it")
            return turn === 0 ? { toolCalls: [{ name: "write_note", input: { text: "v2" } }] } : { text: "noted" };
          if (turn === 0) return { toolCalls: [{ name: "delegate", input: { objective: "deploy it" } }] };
          const answer = request.transcript.findLast((entry) => entry.role === "tool");
          return { text: `parent saw: ${answer?.role === "tool" ? answer.content : "nothing"}` };
        }),
        { mode: "by-transcript", id: "main" },
      ),
      tools: [writeTool],
      delegation: {},
    };
    const parent = await startTask(store, { objective: "ship", agent: "main" });
    const errors: unknown[] = [];
    pool = startWorkers({
      store,
      agents: createAgentRegistry({ main }, "main"),
      pollMs: 20,
      onError: (error) => errors.push(error),
    });
    const child = async () => (await store.read(parent)).find((e) => e.type === "child_task" && e.phase === "spawned");
    await advanceUntil(async () => {
      const spawned = await child();
      return (
        spawned?.type === "child_task" &&
        (await status(store, spawned.childTaskId)) === "parked" &&
        (await status(store, parent)) === "parked" &&
        pool?.running().length === 0
      );
    });
    const spawned = await child();
    const childId = spawned?.type === "child_task" ? spawned.childTaskId : "";
    // Nothing to do until the cancel: the parent waits, the child waits for a person.
    await vi.advanceTimersByTimeAsync(200);
    expect(await status(store, parent)).toBe("parked");
    await cancel(store, childId, { reason: "not needed" });
    await advanceUntil(async () => (await status(store, parent)) === "completed");
    const done = (await store.read(parent)).find((e) => e.type === "task_completed");
    expect(done).toMatchObject({ result: `parent saw: The sub-agent's task ${childId} was cancelled.` });
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([]);
    expect(errors).toEqual([]);
  });
});

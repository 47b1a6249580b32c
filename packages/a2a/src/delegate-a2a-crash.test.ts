// A crash while the remote agent works: the host is killed with the dying store of core's crash
// tests, a fresh host resumes the task (on a real SQLite file too, reopened as a new process
// would), and the call reattaches to the remote task it had recorded (SubscribeToTask while it
// still runs, GetTask once it is over) instead of sending it again: the remote agent receives
// exactly one SendStreamingMessage per delegation.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { MemoryStore, runLeg, type Store, type StoredEvent, startTask } from "@sema-agent/core";
import { dyingStore, ScriptedModel, type ScriptedTurn, SimulatedDeath } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delegateA2A } from "./index.ts";
import { gate, type RemoteAgent, startRemoteAgent, until } from "./test-support/remote-agent.ts";

let remote: RemoteAgent;
beforeAll(async () => {
  remote = await startRemoteAgent();
});
afterAll(() => remote.close());

const steps = (message: string): ScriptedTurn[] => [
  { toolCalls: [{ name: "delegate_a2a", input: { message } }] },
  { text: "Done." },
];

/** A stateless model: a resumed task goes on with the turn its transcript is at. */
const model = (turns: ScriptedTurn[]) => new ScriptedModel(turns, { mode: "by-transcript" });

/** Every append's events, through a proxy that changes nothing else. */
function recording(inner: Store): { store: Store; appends: StoredEvent[][] } {
  const appends: StoredEvent[][] = [];
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append")
        return async (...args: Parameters<Store["append"]>) => {
          const stored = await target.append(...args);
          appends.push(stored);
          return stored;
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, appends };
}

const stores: Store[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A task on a store whose clock the test moves (to let a dead host's lease expire): in memory, or
 * in a real SQLite file that `reopen` opens again as a restarted process would.
 */
async function freshTask(kind: "memory" | "sqlite" = "memory") {
  const clock = { now: Date.parse("2026-12-01T00:00:00Z") };
  const now = () => clock.now;
  const dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "sema-a2a-")) : "";
  if (dir !== "") dirs.push(dir);
  const path = join(dir, "sema.db");
  const open = (): Store => {
    const store = kind === "sqlite" ? new SqliteStore({ path, now }) : new MemoryStore({ now });
    stores.push(store);
    return store;
  };
  const base = open();
  const taskId = await startTask(base, { objective: "Delegate" });
  return { base, taskId, clock, reopen: kind === "sqlite" ? open : () => base };
}

function sent(message: string): number {
  return remote.executions.filter((text) => text === message).length;
}

describe("delegateA2A across a crash", () => {
  it.each(["memory", "sqlite"] as const)(
    "reattaches with SubscribeToTask to a remote task still working (%s store): sent once, answered once",
    async (kind) => {
      const message = `crash me (${kind})`;
      let hold = gate();
      hold.open();
      remote.script = async (turn) => {
        turn.status(TaskState.TASK_STATE_WORKING, "crunching");
        await hold.wait;
        turn.artifact(`answer to ${turn.text}`);
        turn.status(TaskState.TASK_STATE_COMPLETED);
      };
      // Where the working state is recorded, in an undisturbed run.
      const reference = await freshTask();
      const recorded = recording(reference.base);
      await runLeg(
        {
          store: recorded.store,
          agent: { model: model(steps("ref")), tools: [delegateA2A({ url: remote.url })] },
        },
        reference.taskId,
      );
      const fatal = recorded.appends.findIndex((events) =>
        events.some((e) => e.type === "tool_checkpoint" && (e.data as { state?: string }).state === "working"),
      );
      expect(fatal).toBeGreaterThan(0);

      hold = gate();
      const { base, taskId, clock, reopen } = await freshTask(kind);
      const calls = remote.calls.length;
      // The host dies just after the remote task's working state is stored, while the remote agent holds.
      const dying = dyingStore(base, { appendsBeforeDeath: fatal, when: "after" });
      await expect(
        runLeg(
          {
            store: dying,
            agent: { model: model(steps(message)), tools: [delegateA2A({ url: remote.url })] },
            leaseTtlMs: 60_000,
          },
          taskId,
        ),
      ).rejects.toBeInstanceOf(SimulatedDeath);
      const before = await base.read(taskId);
      expect(before.some((e) => e.type === "tool_result")).toBe(false);

      clock.now += 61_000; // the dead host's lease expires
      // A new process: for SQLite, a new store on the same file.
      const restarted = reopen();
      const resumed = runLeg(
        {
          store: restarted,
          agent: { model: model(steps(message)), tools: [delegateA2A({ url: remote.url })] },
        },
        taskId,
      );
      await until(() => remote.calls.slice(calls).includes("SubscribeToTask"));
      hold.open();
      expect(await resumed).toMatchObject({ status: "completed", result: "Done." });

      expect(sent(message)).toBe(1);
      expect(remote.calls.slice(calls).filter((c) => c === "SendStreamingMessage")).toHaveLength(1);
      const events = await base.read(taskId);
      const results = events.flatMap((e) => (e.type === "tool_result" ? [e] : []));
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ status: "ok" });
      expect(results[0]?.content).toContain(`answer to ${message}`);
      expect(events.flatMap((e) => (e.type === "tool_call_started" ? [e.attempt] : []))).toEqual([1, 2]);
    },
  );

  it("a host killed at any append, before or after it commits: every delegation reaches the remote agent once", async () => {
    remote.script = async (turn) => {
      turn.status(TaskState.TASK_STATE_WORKING, "quick");
      turn.artifact(`answer to ${turn.text}`);
      turn.status(TaskState.TASK_STATE_COMPLETED);
    };
    const reference = await freshTask();
    const recorded = recording(reference.base);
    await runLeg(
      {
        store: recorded.store,
        agent: { model: model(steps("ref-2")), tools: [delegateA2A({ url: remote.url })] },
      },
      reference.taskId,
    );
    let reattached = 0;
    let foundInContext = 0;
    for (const when of ["before", "after"] as const) {
      for (let n = 0; n <= recorded.appends.length; n++) {
        const message = `job ${when} ${n}`;
        const { base, taskId, clock } = await freshTask();
        const calls = remote.calls.length;
        const dying = dyingStore(base, { appendsBeforeDeath: n, when });
        await runLeg(
          {
            store: dying,
            agent: { model: model(steps(message)), tools: [delegateA2A({ url: remote.url })] },
            leaseTtlMs: 60_000,
          },
          taskId,
        ).catch((error: unknown) => expect(error).toBeInstanceOf(SimulatedDeath));
        clock.now += 61_000;
        const resumedAt = remote.calls.length;
        const outcome = await runLeg(
          {
            store: base,
            agent: { model: model(steps(message)), tools: [delegateA2A({ url: remote.url })] },
          },
          taskId,
        );
        expect(outcome, message).toMatchObject({ status: "completed", result: "Done." });
        expect(sent(message), message).toBe(1);
        const events = await base.read(taskId);
        const results = events.flatMap((e) => (e.type === "tool_result" ? [e] : []));
        expect(results, message).toHaveLength(1);
        expect(results[0]?.content, message).toContain(`answer to ${message}`);
        const resumedCalls = remote.calls.slice(resumedAt);
        if (resumedCalls.includes("GetTask")) reattached++;
        // Only "sending" was recorded, but the message had arrived: found in the context, not sent again.
        if (resumedCalls.includes("ListTasks") && !resumedCalls.includes("SendStreamingMessage")) foundInContext++;
        expect(
          remote.calls.slice(calls).filter((c) => c === "SendStreamingMessage"),
          message,
        ).toHaveLength(1);
      }
    }
    // Some deaths came after the remote task was recorded: those resumed by reading it.
    expect(reattached).toBeGreaterThanOrEqual(2);
    expect(foundInContext).toBeGreaterThanOrEqual(1);
  });

  it("an agent that cannot list its tasks leaves a send cut short in doubt: the model is told, nothing is sent again", async () => {
    const strict = await startRemoteAgent({ refuse: ["ListTasks"] });
    try {
      const reference = await freshTask();
      const recorded = recording(reference.base);
      await runLeg(
        { store: recorded.store, agent: { model: model(steps("ref-3")), tools: [delegateA2A({ url: strict.url })] } },
        reference.taskId,
      );
      // The append that records the remote task's id: dying before it commits, the log says only "sending".
      const fatal = recorded.appends.findIndex((events) =>
        events.some((e) => e.type === "tool_checkpoint" && (e.data as { phase?: string }).phase === "accepted"),
      );
      const { base, taskId, clock } = await freshTask();
      const dying = dyingStore(base, { appendsBeforeDeath: fatal, when: "before" });
      await expect(
        runLeg(
          {
            store: dying,
            agent: { model: model(steps("maybe")), tools: [delegateA2A({ url: strict.url })] },
            leaseTtlMs: 60_000,
          },
          taskId,
        ),
      ).rejects.toBeInstanceOf(SimulatedDeath);
      clock.now += 61_000;
      const outcome = await runLeg(
        { store: base, agent: { model: model(steps("maybe")), tools: [delegateA2A({ url: strict.url })] } },
        taskId,
      );
      expect(outcome).toMatchObject({ status: "completed" });
      const results = (await base.read(taskId)).flatMap((e) => (e.type === "tool_result" ? [e] : []));
      expect(results).toHaveLength(1);
      expect(results[0]?.status).toBe("error");
      expect(results[0]?.content).toContain("cannot say whether it arrived");
      expect(strict.executions.filter((text) => text === "maybe")).toHaveLength(1);
      expect(strict.calls.filter((c) => c === "ListTasks").length).toBeGreaterThanOrEqual(1);
    } finally {
      await strict.close();
    }
  });
});

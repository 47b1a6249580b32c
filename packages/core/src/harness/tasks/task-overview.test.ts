import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import { anyLog } from "../../core/task-log.fixture.ts";
import { reduceSummary, summarize } from "../../core/task-summary.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { make } from "../../testing/event-factories.ts";
import { loadTaskOverview, overviewOf } from "./task-overview.ts";

const created = { ...make.created("p1", "the objective"), agent: "a", model: "m", metadata: { k: [1] } };

/** A task with `log` after its creation (a real log has one task_created, first). */
async function stored(log: TaskEvent[]) {
  const store = new MemoryStore();
  const more = log.filter((event) => event.type !== "task_created");
  await store.createTask({ taskId: "t1", created, more });
  return { store, record: await store.getTask("t1"), events: await store.read("t1") };
}

describe("loadTaskOverview", () => {
  it("property: equals the fold's overview; pending approvals are the summary's open ones, as requested", async () => {
    await fc.assert(
      fc.asyncProperty(anyLog, async (log) => {
        const { store, record, events } = await stored(log);
        const { pendingApprovals, ...rest } = await loadTaskOverview(store, record);
        const { pendingApprovals: _, ...folded } = overviewOf(record, fold(events));
        expect(rest).toEqual(folded);
        expect(pendingApprovals.map((approval) => approval.callId)).toEqual(record.summary.openApprovals);
        for (const approval of pendingApprovals) {
          const requests = events.flatMap((e) =>
            e.type === "approval_requested" && e.callId === approval.callId
              ? [{ name: e.name, inputJson: e.inputJson, digest: e.digest }]
              : [],
          );
          expect(requests).toContainEqual({
            name: approval.name,
            inputJson: approval.inputJson,
            digest: approval.digest,
          });
        }
      }),
      { numRuns: 500 },
    );
  });

  it("reads a fixed number of events, however long the log (no fold, no snapshot)", async () => {
    const counts: number[] = [];
    for (const filler of [0, 5_000]) {
      const store = new MemoryStore();
      const log: TaskEvent[] = [
        ...Array.from({ length: filler }, () => make.note("x".repeat(100))),
        {
          type: "approval_requested",
          v: 1,
          legId: "leg-1",
          callId: "c1",
          name: "echo",
          inputJson: "{}",
          digest: "d".repeat(64),
        },
        { type: "child_task", v: 1, phase: "result", childTaskId: "k1", status: "completed", result: "r" },
        { type: "task_completed", v: 1, result: "done" },
      ];
      await store.createTask({ taskId: "t1", created, more: log });
      let read = 0;
      const counting = Object.assign(Object.create(store) as MemoryStore, {
        read: async (...args: Parameters<MemoryStore["read"]>) => {
          const events = await store.read(...args);
          read += events.length;
          return events;
        },
        latestSnapshot: () => Promise.reject(new Error("a status read must not parse a snapshot")),
      });
      const overview = await loadTaskOverview(counting, await store.getTask("t1"));
      expect(overview).toMatchObject({ objective: "the objective", result: "done", metadata: { k: [1] } });
      expect(overview.pendingApprovals.map((a) => a.callId)).toEqual(["c1"]);
      expect(overview.children).toEqual([{ childTaskId: "k1", status: "completed", result: "r" }]);
      counts.push(read);
    }
    expect(counts).toEqual([4, 4]);
  });

  it("ids that name Object.prototype's members are ids like any other, through JSON too", async () => {
    const digest = "d".repeat(64);
    const log: TaskEvent[] = [];
    for (const callId of ["__proto__", "constructor", "toString"])
      log.push({ type: "approval_requested", v: 1, legId: "l1", callId, name: "echo", inputJson: "{}", digest });
    log.push(
      {
        type: "approval_decided",
        v: 1,
        callId: "constructor",
        digest,
        decision: "deny",
        actor: { id: "a", verified: true },
      },
      { type: "child_task", v: 1, phase: "spawned", childTaskId: "__proto__" },
      { type: "child_task", v: 1, phase: "result", childTaskId: "__proto__", status: "completed", result: "r" },
    );
    const { store, record, events } = await stored(log);
    const fromJson = { ...record, summary: JSON.parse(JSON.stringify(record.summary)) };
    for (const each of [record, fromJson]) {
      const overview = await loadTaskOverview(store, each);
      expect(overview.pendingApprovals.map((approval) => approval.callId)).toEqual(["__proto__", "toString"]);
      expect(overview.children).toEqual(overviewOf(record, fold(events)).children);
      expect(overview.children).toEqual([{ childTaskId: "__proto__", status: "completed", result: "r" }]);
    }
  });

  it("folds a summary stored before it had seqs (an old row), with the same answer", async () => {
    const { store, record, events } = await stored([{ type: "task_completed", v: 1, result: "old" }]);
    const { seqs: _, ...old } = record.summary;
    expect(await loadTaskOverview(store, { ...record, summary: old })).toEqual(overviewOf(record, fold(events)));
    expect((await loadTaskOverview(store, { ...record, summary: old })).result).toBe("old");
  });

  it("a reduction told no seq drops the seqs rather than keep wrong ones", () => {
    const summary = summarize([make.created()]);
    expect(summary.seqs).toBeDefined();
    expect(reduceSummary(summary, make.note()).seqs).toBe(summary.seqs);
    expect(reduceSummary(summary, { type: "task_completed", v: 1, result: "r" }).seqs).toBeUndefined();
    expect(reduceSummary(summary, { type: "task_completed", v: 1, result: "r" }, { seq: 2 }).seqs?.end).toBe(2);
  });
});

/**
 * The status-read part of the store conformance suite: the summary a store keeps carries the
 * seqs of the events a status read needs (`TaskSummary.seqs`), right after creation and across
 * appends, so `loadTaskOverview` reads those few events and agrees with folding the whole log.
 */
import { fold } from "../core/fold.ts";
import { summarize } from "../core/task-summary.ts";
import { loadTaskOverview, overviewOf } from "../harness/tasks/task-overview.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";
import type { ConformanceContext } from "./store-conformance-live.ts";

const digest = "d".repeat(64);

function requested(callId: string): TaskEvent {
  return { type: "approval_requested", v: 1, legId: "l1", callId, name: "echo", inputJson: "{}", digest };
}

export function overviewConformance(context: ConformanceContext): void {
  const { describe, it, expect, fresh } = context;
  describe("status reads", () => {
    it("keeps the seqs of creation, open approvals, children and the end, as the fold does", async () => {
      const store = await fresh();
      await store.createTask({
        taskId: "over-1",
        created: { ...make.created("p1", "status"), agent: "a", metadata: { k: 1 } },
        more: [requested("c0")],
      });
      let { lastSeq } = await store.getTask("over-1");
      const batches: TaskEvent[][] = [
        [make.legStarted("l1"), requested("c1"), requested("c2")],
        [
          {
            type: "approval_decided",
            v: 1,
            callId: "c1",
            digest,
            decision: "approve",
            actor: { id: "a", verified: true },
          },
          { type: "child_task", v: 1, phase: "spawned", childTaskId: "k1", callId: "c9" },
          { type: "child_task", v: 1, phase: "spawned", childTaskId: "k2" },
        ],
        [{ type: "child_task", v: 1, phase: "result", childTaskId: "k1", status: "failed", result: "no" }],
        [{ type: "task_failed", v: 1, error: { code: "ModelError", message: "boom" } }, make.legEnded("l1", "failed")],
      ];
      for (const events of batches) {
        await store.append("over-1", events, { expectedSeq: lastSeq });
        lastSeq += events.length;
        const record = await store.getTask("over-1");
        const log = await store.read("over-1");
        expect(record.summary).toEqual(summarize(log));
        expect(await loadTaskOverview(store, record)).toEqual(overviewOf(record, fold(log)));
      }
      const record = await store.getTask("over-1");
      expect(record.summary.seqs).toEqual({ v: 1, end: 10, approvals: { c0: 2, c2: 5 }, children: { k1: 9, k2: 8 } });
      expect(await loadTaskOverview(store, record)).toMatchObject({
        objective: "status",
        agent: "a",
        metadata: { k: 1 },
        pendingApprovals: [{ callId: "c0" }, { callId: "c2" }],
        children: [
          { childTaskId: "k1", status: "failed", result: "no" },
          { childTaskId: "k2", status: "running" },
        ],
        error: { code: "ModelError", message: "boom" },
      });
    });
  });
}

// Quotas under group commit in SqliteStore: the usage counters move inside each append's own
// savepoint of the batch (a refused append counts nothing, the others count), and a batch of
// creations racing for the last `maxActiveTasks` slots lets exactly that many through.
import { isSemaError, type TaskEvent } from "@sema-agent/core";
import type { UsageBucket } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "./sqlite-store.ts";
import { tempDb } from "./temp-dir.fixture.ts";

// A clock that stands still keeps a loaded machine from splitting the batches these tests count.
const NOW = Date.parse("2026-12-01T12:00:00Z");
const now = () => NOW;
const HOUR = 3_600_000;
const open: SqliteStore[] = [];
function store(): SqliteStore {
  const opened = new SqliteStore({ path: tempDb(), now });
  open.push(opened);
  return opened;
}
afterEach(async () => {
  for (const opened of open.splice(0)) await opened.close();
});

function turn(sessionSeq: number, inputTokens: number, outputTokens: number): TaskEvent {
  return { ...make.turn(sessionSeq), usage: { inputTokens, outputTokens } };
}

function sum(buckets: readonly UsageBucket[]): { input: number; output: number; turns: number } {
  return buckets.reduce(
    (total, b) => ({
      input: total.input + b.inputTokens,
      output: total.output + b.outputTokens,
      turns: total.turns + b.turns,
    }),
    { input: 0, output: 0, turns: 0 },
  );
}

const codeOf = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === "fulfilled" ? "ok" : isSemaError(outcome.reason) ? outcome.reason.code : String(outcome.reason);

describe("usage counters under group commit (SqliteStore)", () => {
  it("count each committed turn of a batch, and nothing of an append refused inside it", async () => {
    const s = store();
    const ids = Array.from({ length: 8 }, (_, i) => `t${i}`);
    for (const taskId of ids) await s.createTask({ taskId, created: { ...make.created("alice"), model: "m" } });
    const before = s.writeStats.commits;
    const outcomes = await Promise.allSettled([
      ...ids.map((taskId) => s.append(taskId, [turn(1, 100, 10)], { expectedSeq: 1 })),
      // The same task and seq later in the same batch: it conflicts, and its 5000 tokens must not count.
      s.append("t0", [turn(1, 5000, 500)], { expectedSeq: 1 }),
      // Refused (a lease it does not hold), after an append of the same task in the batch.
      s.append("t1", [turn(2, 7000, 700)], { expectedSeq: 2, leaseToken: "not-a-lease" }),
    ]);
    expect(outcomes.map(codeOf)).toEqual([...ids.map(() => "ok"), "SeqConflict", "LeaseLost"]);
    // One transaction held all ten appends: the refusals were rolled back to their savepoints.
    expect(s.writeStats.commits - before).toBe(1);
    const usage = await s.usage({ principal: "alice", sinceMs: NOW - HOUR });
    expect(sum(usage.buckets)).toEqual({ input: 800, output: 80, turns: 8 });
  });

  it("a batch of creations racing for maxActiveTasks lets exactly that many through, writing nothing for the rest", async () => {
    const s = store();
    await s.createTask({ taskId: "held", created: make.created("carol") });
    const before = s.writeStats.commits;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        s.createTask({ taskId: `c${i}`, created: make.created("carol"), maxActiveTasks: 3 }),
      ),
    );
    expect(s.writeStats.commits - before).toBe(1);
    expect(outcomes.map(codeOf)).toEqual(["ok", "ok", ...Array.from({ length: 6 }, () => "QuotaExceeded")]);
    expect((await s.usage({ principal: "carol", sinceMs: NOW })).activeTasks).toBe(3);
    expect((await s.listTasks({ principal: "carol" })).tasks.map((t) => t.taskId).sort()).toEqual(["c0", "c1", "held"]);
  });
});

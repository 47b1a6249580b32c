// Quotas under group commit in PostgresStore: an append holding a model turn goes into the batched
// statement like any other, which moves the counters in the same statement for the appends it
// writes (one counter row per principal, hour and model however many turns of the batch meet it),
// and counts nothing for an append it leaves to the locking path, which counts it there.
import { isSemaError, type TaskEvent } from "@sema-agent/core";
import type { UsageBucket } from "@sema-agent/core/store-kit";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "./test-server.fixture.ts";

const opened: Array<{ store: PostgresStore; schema: string }> = [];
async function open(schema: string, groupCommit?: boolean): Promise<PostgresStore> {
  const store = await PostgresStore.open({
    connectionString: POSTGRES_URL,
    schema,
    ...(groupCommit === undefined ? {} : { groupCommit }),
  });
  opened.push({ store, schema });
  return store;
}
afterEach(async () => {
  const schemas = new Set<string>();
  for (const { store, schema } of opened.splice(0)) {
    await store.close();
    schemas.add(schema);
  }
  for (const schema of schemas) await dropSchema(schema);
});

function turn(sessionSeq: number, inputTokens: number, outputTokens: number, model?: string): TaskEvent {
  return { ...make.turn(sessionSeq), usage: { inputTokens, outputTokens }, ...(model === undefined ? {} : { model }) };
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

describe.skipIf(skip)("usage counters under group commit (PostgresStore)", () => {
  it("count every turn appended by concurrent legs, the turns batched like their other appends", async () => {
    const store = await open(freshSchema());
    const ids = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    for (const taskId of ids) await store.createTask({ taskId, created: { ...make.created("alice"), model: "m" } });
    // The schema is fresh: every bucket it has is this test's.
    const since = 0;
    // Each leg: a turn with a note (one append), then a note alone: both rounds go in batches.
    const first = store.writeStats;
    await Promise.all(ids.map((taskId) => store.append(taskId, [turn(1, 100, 10), make.note()], { expectedSeq: 1 })));
    const before = store.writeStats;
    expect(before.writes - first.writes).toBe(12);
    expect(before.commits - first.commits).toBeLessThanOrEqual(4);
    await Promise.all(ids.map((taskId) => store.append(taskId, [make.note("after")], { expectedSeq: 3 })));
    const after = store.writeStats;
    expect(after.writes - before.writes).toBe(12);
    expect(after.commits - before.commits).toBeLessThanOrEqual(4);
    // A second round of turns, concurrent with notes of the same tasks' neighbours.
    await Promise.all(
      ids.map((taskId, i) =>
        store.append(taskId, i % 2 === 0 ? [turn(2, 1000, 100)] : [make.note("no usage")], { expectedSeq: 4 }),
      ),
    );
    const usage = await store.usage({ principal: "alice", sinceMs: since });
    expect(sum(usage.buckets)).toEqual({ input: 12 * 100 + 6 * 1000, output: 12 * 10 + 6 * 100, turns: 18 });
    for (const taskId of ids) expect((await store.read(taskId)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("merges turns of many tasks and models in one batch into one counter row each", async () => {
    const store = await open(freshSchema());
    const ids = Array.from({ length: 8 }, (_, i) => `m${i}`);
    // Half the tasks name model "m" at creation, half none; turns name "x", or nothing (the task's).
    for (const [i, taskId] of ids.entries())
      await store.createTask({ taskId, created: { ...make.created("carol"), ...(i % 2 === 0 ? { model: "m" } : {}) } });
    // The schema is fresh: every bucket it has is this test's.
    const since = 0;
    await Promise.all(
      ids.map((taskId) =>
        store.append(taskId, [turn(1, 1, 1), turn(2, 10, 10, "x"), turn(3, 100, 100, "m")], { expectedSeq: 1 }),
      ),
    );
    const byModel = Object.fromEntries(
      (await store.usage({ principal: "carol", sinceMs: since })).buckets.map((b) => [
        b.model,
        [b.inputTokens, b.turns],
      ]),
    );
    // "m": four anonymous turns of the "m" tasks and eight named; "": four anonymous turns of the others.
    expect(byModel).toEqual({ "": [4, 4], m: [4 + 800, 12], x: [80, 8] });
  });

  it("a turn refused for a row that moved elsewhere counts nothing; appended again, it counts once", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const other = await open(schema, false);
    await store.createTask({ taskId: "t", created: { ...make.created("bob"), model: "m" } });
    // The schema is fresh: every bucket it has is this test's.
    const since = 0;
    await other.append("t", [make.note("elsewhere")], { expectedSeq: 1 });
    const outcomes = await Promise.allSettled([
      store.append("t", [turn(1, 5000, 500)], { expectedSeq: 1 }),
      store.append("t", [turn(1, 40, 4)], { expectedSeq: 2 }),
    ]);
    expect(outcomes.map(codeOf).sort()).toEqual(["SeqConflict", "ok"]);
    expect(sum((await store.usage({ principal: "bob", sinceMs: since })).buckets)).toEqual({
      input: 40,
      output: 4,
      turns: 1,
    });
  });
});

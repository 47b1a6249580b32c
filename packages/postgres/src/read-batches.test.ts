/**
 * Coalesced reads against a real schema: any set of concurrent `read`, `getTask` and
 * `latestSnapshot` calls (random tasks, unknown ones among them, random `afterSeq` and `limit`)
 * gives each caller what the same call alone gives on a store that does not coalesce, in fewer
 * statements than calls.
 */
import { isSemaError, type StoredEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "./test-server.fixture.ts";

/** What a call gave: its value, or its error's code. */
async function outcome<T>(call: () => Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await call() };
  } catch (error) {
    return { error: isSemaError(error) ? error.code : String(error) };
  }
}

describe.skipIf(skip)("coalesced reads (PostgresStore)", () => {
  const schema = freshSchema();
  const pool = new pg.Pool({ connectionString: POSTGRES_URL });
  let statements = 0;
  let coalesced: PostgresStore;
  let alone: PostgresStore;
  /** Task ids: lengths 1 … 40 events, one never created. */
  const ids = ["r0", "r1", "r2", "r3", "r4", "missing"];
  const lengths = [1, 2, 7, 25, 40];

  beforeAll(async () => {
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    Object.assign(pool, {
      query: (...args: unknown[]) => {
        statements++;
        return query(...args);
      },
    });
    coalesced = await PostgresStore.open({ pool, schema, pollMs: 60_000 });
    alone = await PostgresStore.open({ connectionString: POSTGRES_URL, schema, groupCommit: false });
    for (const [i, length] of lengths.entries()) {
      const taskId = ids[i] as string;
      await alone.createTask({ taskId, created: make.created("p") });
      for (let seq = 1; seq < length; seq++)
        await alone.append(taskId, [make.note(`${taskId}-${seq}`)], { expectedSeq: seq });
    }
    await alone.putSnapshot({ taskId: "r3", seq: 20, v: 1, state: { note: "at 20" } });
  });

  afterAll(async () => {
    await coalesced.close();
    await alone.close();
    await pool.end();
    await dropSchema(schema);
  });

  it("gives each concurrent read what it gives alone: order, limit, TaskNotFound", async () => {
    const read = fc.record({
      task: fc.integer({ min: 0, max: ids.length - 1 }),
      afterSeq: fc.integer({ min: 0, max: 45 }),
      limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(read, { minLength: 1, maxLength: 60 }), async (reads) => {
        const options = (r: (typeof reads)[number]) => ({
          afterSeq: r.afterSeq,
          ...(r.limit === undefined ? {} : { limit: r.limit }),
        });
        const before = statements;
        const together = await Promise.all(
          reads.map((r) => outcome(() => coalesced.read(ids[r.task] as string, options(r)))),
        );
        const sent = statements - before;
        const expected: Array<{ ok: StoredEvent[] } | { error: string }> = [];
        for (const r of reads) expected.push(await outcome(() => alone.read(ids[r.task] as string, options(r))));
        expect(together).toEqual(expected);
        // One statement per batch (the reads of one tick), not one per read.
        if (reads.length > 4) expect(sent).toBeLessThan(reads.length);
      }),
      { numRuns: 40 },
    );
  });

  it("gives each concurrent getTask and latestSnapshot what it gives alone", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: ids.length - 1 }), { minLength: 1, maxLength: 30 }),
        async (tasks) => {
          const together = await Promise.all(
            tasks.flatMap((t) => [
              outcome(() => coalesced.getTask(ids[t] as string)),
              outcome(() => coalesced.latestSnapshot(ids[t] as string)),
            ]),
          );
          const expected: unknown[] = [];
          for (const t of tasks) {
            expected.push(await outcome(() => alone.getTask(ids[t] as string)));
            expected.push(await outcome(() => alone.latestSnapshot(ids[t] as string)));
          }
          expect(together).toEqual(expected);
        },
      ),
      { numRuns: 20 },
    );
  });
});

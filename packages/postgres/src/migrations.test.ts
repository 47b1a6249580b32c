/**
 * A schema written by an earlier version of this package opens, migrates and reads the same.
 * The schema 1 database is built here from migration 1 itself (the SQL that shipped) and rows
 * as that version wrote them.
 */
import { sendInput } from "@sema-agent/core";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { queries } from "./queries.ts";
import { MIGRATIONS, migrate, SCHEMA_VERSION } from "./schema.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

const TASK = "0193a000-0000-7000-8000-000000000001";
const EVENTS = [
  '{"type":"task_created","v":1,"objective":"Fixture task","principal":"acme"}',
  '{"type":"leg_started","v":1,"legId":"leg-1","trigger":"start"}',
  '{"type":"leg_ended","v":1,"legId":"leg-1","reason":"parked:input"}',
  '{"type":"human_input","v":1,"inputId":"input-a","carrier":"steer","source":"user","delivery":"parked","sessionSeq":0,"text":"first"}',
  '{"type":"human_input","v":1,"inputId":"input-b","carrier":"steer","source":"user","delivery":"parked","sessionSeq":0,"text":"second"}',
  '{"type":"human_input","v":1,"inputId":"input-a","carrier":"steer","source":"user","delivery":"applied","sessionSeq":0}',
];

describe.skipIf(skip)("a schema 1 PostgreSQL database", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("migrates to the current schema, reads the same events and finds its inputs by id", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const quoted = `"${schema}"`;
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await migrate(client, schema, quoted, MIGRATIONS.slice(0, 1));
      const summary = JSON.stringify({ status: "parked" });
      const inserted = await client.query<{ task_no: string }>(
        `INSERT INTO ${quoted}.tasks (task_id, principal, created_at, updated_at, last_seq, status, wants_worker, summary)
         VALUES ($1, 'acme', '2026-11-29T12:00:00.000Z', '2026-11-29T12:00:05.000Z', $2, 'parked', true, $3)
         RETURNING task_no`,
        [TASK, EVENTS.length, summary],
      );
      for (const [i, body] of EVENTS.entries()) {
        await client.query(`INSERT INTO ${quoted}.events (task_no, seq, at, body) VALUES ($1, $2, $3, $4)`, [
          inserted.rows[0]?.task_no,
          i + 1,
          `2026-11-29T12:00:0${i}.000Z`,
          body,
        ]);
      }
    } finally {
      await client.end();
    }

    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => store.close());
    const events = await store.read(TASK);
    expect(events.map(({ taskId: _t, seq: _s, at: _a, ...body }) => JSON.stringify(body))).toEqual(EVENTS);
    expect(await store.findInput(TASK, "input-a")).toMatchObject({ seq: 4, delivery: "parked", text: "first" });
    expect(await store.findInput(TASK, "input-b")).toMatchObject({ seq: 5, delivery: "parked", text: "second" });
    expect(await sendInput(store, TASK, { text: "second", inputId: "input-b" })).toEqual({
      inputId: "input-b",
      delivery: "parked",
    });
    const versions = await withClient((c) =>
      c.query<{ version: number }>(`SELECT version FROM "${schema}".sema_schema_migrations ORDER BY version`),
    );
    expect(versions.rows.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });
});

describe.skipIf(skip)("a schema 5 PostgreSQL database", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const SOURCE = "0193a000-0000-7000-8000-000000000061";
  const FORK = "0193a000-0000-7000-8000-000000000062";
  const FORK_EVENTS = [
    '{"type":"task_created","v":1,"objective":"Fixture source","principal":"acme"}',
    '{"type":"leg_started","v":1,"legId":"leg-1","trigger":"start"}',
    `{"type":"task_forked","v":1,"origin":"fork","source":{"taskId":"${SOURCE}","seq":2}}`,
  ];

  it("fills the fork source of the forks it holds, and lists them by it through its index", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const quoted = `"${schema}"`;
    await withClient(async (client) => {
      await migrate(client, schema, quoted, MIGRATIONS.slice(0, 5));
      // The rows as schema 5 code wrote them: the fork source in the summary only.
      const rows: Array<[string, string, string, string[]]> = [
        [SOURCE, "running", JSON.stringify({ status: "running" }), FORK_EVENTS.slice(0, 2)],
        [
          FORK,
          "parked",
          JSON.stringify({ status: "parked", forkedFrom: { taskId: SOURCE, seq: 2, origin: "fork" } }),
          FORK_EVENTS,
        ],
      ];
      for (const [i, [taskId, status, summary, events]] of rows.entries()) {
        const inserted = await client.query<{ task_no: string }>(
          `INSERT INTO ${quoted}.tasks (task_id, principal, created_at, updated_at, last_seq, status, wants_worker, summary)
           VALUES ($1, 'acme', $2, $2, $3, $4, false, $5) RETURNING task_no`,
          [taskId, `2026-12-06T12:00:0${i}.000Z`, events.length, status, summary],
        );
        for (const [seq, body] of events.entries())
          await client.query(`INSERT INTO ${quoted}.events (task_no, seq, at, body) VALUES ($1, $2, $3, $4)`, [
            inserted.rows[0]?.task_no,
            seq + 1,
            `2026-12-06T12:00:0${i}.000Z`,
            body,
          ]);
      }
    });

    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => store.close());
    const ids = async (forkedFrom: string) =>
      (await store.listTasks({ principal: "acme", forkedFrom })).tasks.map((task) => task.taskId);
    expect(await ids(SOURCE)).toEqual([FORK]);
    expect(await ids(FORK)).toEqual([]);
    const plan = await withClient(async (client) => {
      // The table is tiny: forbid the sequential scan, so the plan shows whether the index serves.
      await client.query("SET enable_seqscan = off");
      const explained = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT task_id FROM ${quoted}.tasks WHERE principal = 'acme' AND forked_from = $1
         ORDER BY created_at DESC, task_id DESC`,
        [SOURCE],
      );
      return explained.rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toContain("tasks_by_fork_source");
  });
});

describe.skipIf(skip)("a schema 6 PostgreSQL database", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("gains the records table, keeps its tasks, and lists records through the primary key", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const quoted = `"${schema}"`;
    await withClient(async (client) => {
      await migrate(client, schema, quoted, MIGRATIONS.slice(0, 6));
      // A task as schema 6 code wrote it.
      const inserted = await client.query<{ task_no: string }>(
        `INSERT INTO ${quoted}.tasks (task_id, principal, created_at, updated_at, last_seq, status, wants_worker, summary)
         VALUES ($1, 'acme', '2026-12-07T09:00:00.000Z', '2026-12-07T09:00:00.000Z', 1, 'created', true, $2)
         RETURNING task_no`,
        [TASK, JSON.stringify({ status: "created" })],
      );
      await client.query(`INSERT INTO ${quoted}.events (task_no, seq, at, body) VALUES ($1, 1, $2, $3)`, [
        inserted.rows[0]?.task_no,
        "2026-12-07T09:00:00.000Z",
        EVENTS[0],
      ]);
    });

    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanup.push(() => store.close());
    expect((await store.read(TASK)).map((e) => e.type)).toEqual(["task_created"]);
    expect(await store.listRecords({ kind: "dataset", principal: "acme" })).toEqual({ records: [] });
    for (const name of ["faq", "Billing", "faq", "billing"])
      await store.putRecord({ kind: "dataset", principal: "acme", name, body: { cases: [] } });
    const { records } = await store.listRecords({ kind: "dataset", principal: "acme" });
    // Byte order (COLLATE "C"), whatever the database's collation: capitals first.
    expect(records.map((r) => [r.name, r.version])).toEqual([
      ["Billing", 1],
      ["billing", 1],
      ["faq", 2],
    ]);

    const { versions, plan } = await withClient(async (client) => {
      const applied = await client.query<{ version: number }>(
        `SELECT version FROM ${quoted}.sema_schema_migrations ORDER BY version`,
      );
      // The table is tiny: forbid the sequential scan, so the plan shows whether the index serves.
      await client.query("SET enable_seqscan = off");
      const explained = await client.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${queries(quoted).listRecords}`,
        ["dataset", "acme", "", 101],
      );
      return { versions: applied.rows.map((row) => row.version), plan: explained.rows.map((row) => row["QUERY PLAN"]) };
    });
    expect(versions).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    // Each next name and each name's latest version is one descent of the primary key (run, so
    // the plan shows the recursion's subplan); nothing is scanned whole, only the page is sorted.
    expect(plan.filter((line) => line.includes("using records_pkey"))).toHaveLength(3);
    expect(plan.join("\n")).toContain("Index Scan Backward using records_pkey");
    expect(plan.filter((line) => line.includes("Seq Scan"))).toEqual([]);
    expect(plan.filter((line) => line.includes("Sort Key")).map((line) => line.trim())).toEqual([
      'Sort Key: r.name COLLATE "C"',
    ]);
  });
});

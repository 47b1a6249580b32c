// Databases written by earlier versions of this package open, migrate and read the same. The
// fixtures under ../fixtures are read-only: each was written once by the version it is named
// after (v1.db: schema 1, before `inputs`; v2.db: JSON-text snapshots; v3.db: before the index of
// live leases; v6.db: a fork, before the fork-source column; v7.db: a task, before records) and
// is copied before it is opened.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { fold, loadTaskOverview, overviewOf, sendInput, type TaskEvent } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "./schema.ts";
import { SqliteStore } from "./sqlite-store.ts";
import { LIST_RECORDS } from "./statements.ts";
import { tempDb } from "./temp-dir.fixture.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const TASK = "0193a000-0000-7000-8000-000000000001";

describe("a schema 1 database", () => {
  it("migrates to the current schema, reads the same events and finds its inputs by id", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v1.db"), path);
    // Read through the copy: even a read-only connection leaves -wal and -shm files beside a file.
    const original = new DatabaseSync(path, { readOnly: true });
    const before = original.prepare("SELECT seq, at, body FROM events ORDER BY seq").all();
    original.close();

    const store = new SqliteStore({ path });
    const events = await store.read(TASK);
    expect(events.map((e) => [e.seq, e.at, JSON.stringify((({ taskId, seq, at, ...body }) => body)(e))])).toEqual(
      before.map((row) => [row.seq, row.at, row.body]),
    );
    expect(await store.findInput(TASK, "input-a")).toMatchObject({ seq: 4, delivery: "parked", text: "first" });
    expect(await store.findInput(TASK, "input-b")).toMatchObject({ seq: 5, delivery: "parked", text: "second" });
    // A send retried with an id the old version recorded is recognised, and nothing is appended.
    expect(await sendInput(store, TASK, { text: "first", inputId: "input-a" })).toEqual({
      inputId: "input-a",
      delivery: "parked",
    });
    expect((await store.getTask(TASK)).lastSeq).toBe(7);
    await store.close();

    const db = new DatabaseSync(path, { readOnly: true });
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    db.close();
    expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
  });
});

describe("a schema 2 database", () => {
  const TASK2 = "0193a000-0000-7000-8000-000000000002";

  it("drops its JSON-text snapshots (a cache), then folds from the log and stores deflated ones", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v2.db"), path);
    const store = new SqliteStore({ path });
    expect(await store.latestSnapshot(TASK2)).toBeUndefined();
    expect((await store.read(TASK2)).map((e) => e.type)).toEqual([
      "task_created",
      "human_input",
      "leg_started",
      "human_input",
      "model_turn",
      "leg_ended",
    ]);
    const state = { transcript: Array.from({ length: 200 }, (_, i) => ({ role: "assistant", content: `turn ${i}` })) };
    await store.putSnapshot({ taskId: TASK2, seq: 6, v: 1, state });
    expect(await store.latestSnapshot(TASK2)).toEqual({ taskId: TASK2, seq: 6, v: 1, state });
    await store.close();

    const db = new DatabaseSync(path);
    const row = db.prepare("SELECT length(state) AS bytes FROM snapshots").get() as { bytes: number };
    // Stored deflated: far smaller than its JSON text.
    expect(row.bytes).toBeLessThan(JSON.stringify(state).length / 5);
    // Damaged bytes are reported as storage failure, not a crash.
    db.prepare("UPDATE snapshots SET state = x'00ff00ff'").run();
    db.close();
    const reopened = new SqliteStore({ path });
    await expect(reopened.latestSnapshot(TASK2)).rejects.toMatchObject({ code: "StoreUnavailable" });
    await reopened.close();
  });
});

describe("a schema 3 database", () => {
  const TASK3 = "0193a000-0000-7000-8000-000000000003";

  it("gains the index of live leases, and reads, lists and snapshots the same", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v3.db"), path);
    const store = new SqliteStore({ path });
    expect((await store.read(TASK3)).map((e) => e.type)).toEqual(["task_created", "leg_started", "model_turn"]);
    // Written with a lease held for a century by a process on "fixture-host".
    const [leased, ...others] = await store.listLeasedOn("fixture-host");
    expect(others).toEqual([]);
    expect(leased).toMatchObject({ taskId: TASK3, lease: { holder: { id: "fixture-host:424242:abcd", pid: 424242 } } });
    expect(await store.latestSnapshot(TASK3)).toEqual({
      taskId: TASK3,
      seq: 3,
      v: 1,
      state: { fixture: "schema 3", turns: [1, 2, 3] },
    });
    await store.close();
    const db = new DatabaseSync(path, { readOnly: true });
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT task_id FROM tasks WHERE lease_expires_at > 0")
      .all()
      .map((row) => String(row.detail));
    db.close();
    expect(plan.join(" ")).toContain("tasks_leased");
  });
});

describe("a task stored before summaries had seqs", () => {
  it("has none, and its status reads fold its log as before, also after new appends", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v1.db"), path);
    const store = new SqliteStore({ path });
    const record = await store.getTask(TASK);
    expect(record.summary.seqs).toBeUndefined();
    expect(await loadTaskOverview(store, record)).toEqual(overviewOf(record, fold(await store.read(TASK))));
    await store.append(TASK, [{ type: "task_completed", v: 1, result: "late" }], { expectedSeq: record.lastSeq });
    const after = await store.getTask(TASK);
    expect(after.summary.seqs).toBeUndefined();
    expect(await loadTaskOverview(store, after)).toEqual(overviewOf(after, fold(await store.read(TASK))));
    expect((await loadTaskOverview(store, after)).result).toBe("late");
    await store.close();
  });
});

describe("a schema 6 database", () => {
  const SOURCE = "0193a000-0000-7000-8000-000000000061";
  const FORK = "0193a000-0000-7000-8000-000000000062";
  const OTHER = "0193a000-0000-7000-8000-000000000063";

  it("fills the fork source of the forks it holds, and lists them by it through its index", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v6.db"), path);
    const store = new SqliteStore({ path });
    const ids = async (forkedFrom: string) =>
      (await store.listTasks({ principal: "acme", forkedFrom })).tasks.map((task) => task.taskId);
    expect(await ids(SOURCE)).toEqual([FORK]);
    expect(await ids(OTHER)).toEqual([]);
    expect(await ids(FORK)).toEqual([]);
    expect((await store.getTask(FORK)).summary.forkedFrom).toEqual({ taskId: SOURCE, seq: 4, origin: "fork" });
    // A fork written after the migration is listed beside the one written before it.
    const copied = (await store.read(SOURCE, { limit: 4 })).map(({ taskId: _t, seq: _s, at: _a, ...event }) => event);
    const [created, ...more] = copied as TaskEvent[];
    if (created?.type !== "task_created") throw new Error("the source starts with task_created");
    await store.createTask({
      taskId: "0193a000-0000-7000-8000-000000000064",
      created,
      more: [...more, { type: "task_forked", v: 1, origin: "fork", source: { taskId: SOURCE, seq: 4 } }],
    });
    expect(await ids(SOURCE)).toEqual(["0193a000-0000-7000-8000-000000000064", FORK]);
    await store.close();

    const db = new DatabaseSync(path, { readOnly: true });
    const columns = db.prepare("SELECT task_id, forked_from FROM tasks ORDER BY task_id").all();
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT task_id FROM tasks WHERE principal = 'acme' AND forked_from = ? ORDER BY created_at DESC, task_id DESC",
      )
      .all(SOURCE)
      .map((row) => String(row.detail));
    db.close();
    expect(columns.map((row) => [row.task_id, row.forked_from])).toEqual([
      [SOURCE, null],
      [FORK, SOURCE],
      [OTHER, null],
      ["0193a000-0000-7000-8000-000000000064", SOURCE],
    ]);
    expect(plan.join(" ")).toContain("tasks_by_fork_source");
  });
});

describe("a schema 7 database", () => {
  const TASK7 = "0193a000-0000-7000-8000-000000000071";

  it("gains the records table, reads its task the same, and lists records through the primary key", async () => {
    const path = tempDb();
    copyFileSync(join(FIXTURES, "v7.db"), path);
    const store = new SqliteStore({ path });
    expect((await store.read(TASK7)).map((e) => e.type)).toEqual(["task_created", "human_input", "engine_note"]);
    expect(await store.findInput(TASK7, "input-a")).toMatchObject({ seq: 2, delivery: "parked", text: "first" });
    expect(await store.listRecords({ kind: "dataset", principal: "acme" })).toEqual({ records: [] });
    for (const name of ["faq", "Billing", "faq"])
      await store.putRecord({ kind: "dataset", principal: "acme", name, body: { cases: [] } });
    const { records } = await store.listRecords({ kind: "dataset", principal: "acme" });
    expect(records.map((r) => [r.name, r.version])).toEqual([
      ["Billing", 1],
      ["faq", 2],
    ]);
    await store.close();

    const db = new DatabaseSync(path, { readOnly: true });
    const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all();
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${LIST_RECORDS}`)
      .all({ kind: "dataset", principal: "acme", after: "", limit: 11 })
      .map((row) => String(row.detail));
    db.close();
    expect(versions.map((row) => row.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    // Every step of the list is a search of the primary key by name, none a scan of the records.
    expect(plan.filter((detail) => /^SCAN (records|r|m)\b/.test(detail))).toEqual([]);
    expect(plan.filter((detail) => detail.includes("USING COVERING INDEX sqlite_autoindex_records_1"))).toHaveLength(3);
    expect(plan).toContain(
      "SEARCH r USING INDEX sqlite_autoindex_records_1 (kind=? AND principal=? AND name=? AND version=?)",
    );
  });
});

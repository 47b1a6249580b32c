// Group commit in PostgresStore: concurrent legs' appends go as one statement, each still
// conditional on its own task, and a backend terminated in the middle of a batch (blocked on a
// row lock inside the statement) loses no acknowledged append and leaves every append of the
// batch wholly absent, its callers told with the retryable StoreUnavailable.
import { isSemaError } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip } from "./test-server.fixture.ts";

const opened: Array<{ store: PostgresStore; schema: string }> = [];
async function open(schema = freshSchema(), groupCommit?: boolean): Promise<PostgresStore> {
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

const codeOf = (outcome: PromiseSettledResult<unknown>) =>
  outcome.status === "fulfilled"
    ? "ok"
    : isSemaError(outcome.reason)
      ? `${outcome.reason.code}${outcome.reason.isRetryable ? " (retryable)" : ""}`
      : String(outcome.reason);

async function tasks(store: PostgresStore, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `t${String(i).padStart(2, "0")}`);
  for (const taskId of ids) await store.createTask({ taskId, created: make.created("p") });
  return ids;
}

describe.skipIf(skip)("group commit (PostgresStore)", () => {
  it("coalesces concurrent appends into one statement, each caller getting its own events", async () => {
    const store = await open();
    const ids = await tasks(store, 40);
    const before = store.writeStats;
    const results = await Promise.all(
      ids.map((taskId) =>
        store.append(taskId, [make.note(`${taskId}-a`), make.note(`${taskId}-b`)], { expectedSeq: 1 }),
      ),
    );
    const after = store.writeStats;
    expect(after.writes - before.writes).toBe(40);
    expect(after.commits - before.commits).toBeLessThanOrEqual(4);
    results.forEach((stored, i) => {
      expect(stored.map((e) => [e.taskId, e.seq])).toEqual([
        [ids[i], 2],
        [ids[i], 3],
      ]);
    });
    for (const taskId of ids) expect((await store.read(taskId)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("a task whose row moved, or whose lease is gone, fails alone; the rest of the batch commits", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const other = await open(schema, false);
    const ids = await tasks(store, 6);
    const lease = await store.acquireLease("t01", { holder: { id: "h" }, ttlMs: 60_000 });
    await store.releaseLease("t01", lease.token);
    // Another node appends to t00: this store's remembered summary is stale for it.
    await other.append("t00", [make.note("elsewhere")], { expectedSeq: 1 });
    const outcomes = await Promise.allSettled([
      store.append("t00", [make.note("stale")], { expectedSeq: 1 }),
      store.append("t01", [make.note("leased")], { expectedSeq: 1, leaseToken: lease.token }),
      store.append("t02", [make.note("fine")], { expectedSeq: 1 }),
      store.append("t03", [make.note("wrong seq")], { expectedSeq: 9 }),
      store.append("t04", [make.note("fine too")], { expectedSeq: 1 }),
    ]);
    expect(outcomes.map(codeOf)).toEqual([
      "SeqConflict (retryable)",
      "LeaseLost",
      "ok",
      "SeqConflict (retryable)",
      "ok",
    ]);
    const notes = async (taskId: string) =>
      (await store.read(taskId)).flatMap((e) => (e.type === "engine_note" ? [e.text] : []));
    expect(await notes("t00")).toEqual(["elsewhere"]);
    expect(await notes("t01")).toEqual([]);
    expect(await notes("t02")).toEqual(["fine"]);
    expect(await notes("t03")).toEqual([]);
    expect(await notes("t04")).toEqual(["fine too"]);
    expect(ids).toHaveLength(6);
  });

  it("releases leases in batches: a live token releases, a stale one is a no-op, an unknown task is TaskNotFound", async () => {
    const store = await open();
    const ids = await tasks(store, 10);
    const leases = await Promise.all(
      ids.map((taskId) => store.acquireLease(taskId, { holder: { id: "w" }, ttlMs: 60_000 })),
    );
    const outcomes = await Promise.allSettled([
      ...ids.map((taskId, i) => store.releaseLease(taskId, leases[i]?.token ?? "")),
      store.releaseLease("t00", "not-the-token"),
      store.releaseLease("missing", "x"),
    ]);
    expect(outcomes.map(codeOf)).toEqual([...ids.map(() => "ok"), "ok", "TaskNotFound"]);
    for (const taskId of ids) expect((await store.getTask(taskId)).lease).toBeUndefined();
  });

  it("takes and renews leases in batches, each by the lease rule: held by another is LeaseHeld, gone is LeaseLost", async () => {
    const store = await open();
    await tasks(store, 5);
    const held = await store.acquireLease("t00", { holder: { id: "other" }, ttlMs: 60_000 });
    const mine = await store.acquireLease("t01", { holder: { id: "me" }, ttlMs: 60_000 });
    const dead = await store.acquireLease("t02", { holder: { id: "dead" }, ttlMs: 60_000 });
    const before = store.writeStats.commits;
    const outcomes = await Promise.allSettled([
      store.acquireLease("t00", { holder: { id: "me" }, ttlMs: 5000 }),
      store.acquireLease("t01", { holder: { id: "me" }, ttlMs: 5000 }),
      store.acquireLease("t02", { holder: { id: "me" }, ttlMs: 5000, replaceHolderId: "dead" }),
      store.acquireLease("t03", { holder: { id: "me" }, ttlMs: 5000 }),
      store.acquireLease("missing", { holder: { id: "me" }, ttlMs: 5000 }),
    ]);
    expect(outcomes.map(codeOf)).toEqual(["LeaseHeld (retryable)", "ok", "ok", "ok", "TaskNotFound"]);
    expect(store.writeStats.commits - before).toBeLessThan(5);
    const leases = outcomes.map((o) => (o.status === "fulfilled" ? o.value : undefined));
    for (const [i, lease] of leases.entries()) {
      if (lease === undefined) continue;
      expect(lease).toMatchObject({ taskId: `t0${i}`, holder: { id: "me" } });
      expect((await store.getTask(lease.taskId)).lease).toEqual(lease);
    }
    expect(leases[1]?.token).not.toBe(mine.token);
    const renewals = await Promise.allSettled([
      store.renewLease("t00", held.token, 90_000),
      store.renewLease("t01", leases[1]?.token ?? "", 90_000),
      store.renewLease("t02", dead.token, 90_000),
    ]);
    expect(renewals.map(codeOf)).toEqual(["ok", "ok", "LeaseLost"]);
    const renewed = renewals[1]?.status === "fulfilled" ? renewals[1].value : undefined;
    expect(Date.parse(renewed?.expiresAt ?? "")).toBeGreaterThan(Date.parse(leases[1]?.expiresAt ?? ""));
    expect((await store.getTask("t01")).lease).toEqual(renewed);
  });

  it("a backend terminated mid-batch: acknowledged appends kept, the batch's appends wholly absent, callers told", async () => {
    const schema = freshSchema();
    const store = await open(schema);
    const ids = await tasks(store, 10);
    // Acknowledged before the failure: these must survive it.
    await Promise.all(ids.map((taskId) => store.append(taskId, [make.note(`${taskId}:0`)], { expectedSeq: 1 })));
    const blocker = new pg.Client({ connectionString: POSTGRES_URL });
    blocker.on("error", () => undefined);
    await blocker.connect();
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      // Hold t05's row: the batch statement locks t00 … t04, then waits here, mid-statement.
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "${schema}".tasks WHERE task_id = 't05' FOR UPDATE`);
      const pending = ids.map((taskId) =>
        store.append(
          taskId,
          [1, 2, 3].map((part) => make.note(`${taskId}:1:${part}`)),
          { expectedSeq: 2 },
        ),
      );
      const settled = Promise.allSettled(pending);
      let terminated = false;
      for (let attempt = 0; attempt < 1000 && !terminated; attempt++) {
        const { rows } = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%"${schema}".tasks t SET last_seq%'`,
        );
        for (const { pid } of rows) {
          await admin.query("SELECT pg_terminate_backend($1)", [pid]);
          terminated = true;
        }
        if (!terminated) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(terminated).toBe(true);
      expect((await settled).map(codeOf)).toEqual(ids.map(() => "StoreUnavailable (retryable)"));
      await blocker.query("ROLLBACK");
    } finally {
      await blocker.end();
      await admin.end();
    }
    // Each task has its acknowledged append and nothing of the terminated batch.
    for (const taskId of ids) {
      const events = await store.read(taskId);
      expect(events.map((e) => (e.type === "engine_note" ? e.text : e.type))).toEqual(["task_created", `${taskId}:0`]);
    }
    // The store carries on: the same appends, retried, commit.
    await Promise.all(ids.map((taskId) => store.append(taskId, [make.note(`${taskId}:retry`)], { expectedSeq: 2 })));
    for (const taskId of ids) expect((await store.getTask(taskId)).lastSeq).toBe(3);
  });
});

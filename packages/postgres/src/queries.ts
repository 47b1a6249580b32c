/**
 * Every SQL statement the store runs, with the schema name filled in once per store. `pg` sends
 * them as parameterized queries; the schema cannot be a parameter, so it is quoted (and checked)
 * before it gets here.
 */
import { TASK_COLUMNS } from "./rows.ts";

/** A timestamp in epoch milliseconds (whole, as JS dates keep them). */
const NOW_MS_OF = (time: string) => `floor(extract(epoch from ${time}) * 1000)::float8`;

/** The database clock in epoch milliseconds. */
const NOW_MS = NOW_MS_OF("clock_timestamp()");

/** ISO text of a timestamp (as `Date#toISOString` writes it), and of the start of its hour (a usage bucket). */
const ISO_OF = (time: string) => `to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const HOUR_OF = (time: string) =>
  `to_char(date_trunc('hour', ${time} AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Quotas' usage counters moved in the statement that writes the turns (so an append that moves
 * usage still takes one round trip, and counts only if it was written): `head` holds the rows
 * written (task_no, task_id, principal, hour), `$task`, `$model` … the per-turn arrays (task id;
 * the turn's model, or null for the task's own, read from its `task_created`). Grouped per
 * counter row, because ON CONFLICT may meet each row once, and in key order, so concurrent batches
 * take the counters' row locks in one order and never deadlock.
 */
const countUsage = (s: string, p: { task: string; model: string; i: string; c: string; o: string; t: string }) => `
      usage AS (
        INSERT INTO ${s}.usage_counters (principal, hour, model, input_tokens, cached_input_tokens, output_tokens, turns)
        SELECT x.principal, x.hour, x.model, sum(x.i)::bigint, sum(x.c)::bigint, sum(x.o)::bigint, sum(x.t)::integer
        FROM (
          SELECT head.principal, head.hour, u.i, u.c, u.o, u.t,
            coalesce(u.model, (SELECT e.body::jsonb ->> 'model' FROM ${s}.events e
              WHERE e.task_no = head.task_no AND e.seq = 1), '') AS model
          FROM head JOIN unnest(${p.task}::text[], ${p.model}::text[], ${p.i}::bigint[], ${p.c}::bigint[],
            ${p.o}::bigint[], ${p.t}::integer[]) AS u (task_id, model, i, c, o, t) ON u.task_id = head.task_id
        ) AS x
        GROUP BY x.principal, x.hour, x.model
        ORDER BY x.principal, x.hour, x.model
        ON CONFLICT (principal, hour, model) DO UPDATE SET
          input_tokens = usage_counters.input_tokens + excluded.input_tokens,
          cached_input_tokens = usage_counters.cached_input_tokens + excluded.cached_input_tokens,
          output_tokens = usage_counters.output_tokens + excluded.output_tokens,
          turns = usage_counters.turns + excluded.turns
      )`;

/** Which filters a `listTasks` query has; each adds its clause and parameters, in this order. */
export interface ListFilters {
  status: boolean;
  forkedFrom: boolean;
  agent: boolean;
  parent: boolean;
  roots: boolean;
  search: boolean;
  cursor: boolean;
}

/**
 * A `listTasks` query: $1 the principal, $2 the limit, then the status, the fork source, the
 * agent, the parent, the lowered search text and the cursor's (created_at, task_id), those given
 * only. Newest first by (created_at, task_id); the cursor clause mirrors `isAfterCursor`. The
 * search is `strpos`, not LIKE: the caller's text has no wildcards.
 */
function listSql(s: string, { status, forkedFrom, agent, parent, roots, search, cursor }: ListFilters): string {
  let next = 3;
  const param = () => `$${next++}`;
  const clauses = ["principal = $1"];
  if (status) clauses.push(`status = ${param()}`);
  if (forkedFrom) clauses.push(`forked_from = ${param()}`);
  if (agent) clauses.push(`agent = ${param()}`);
  if (parent) clauses.push(`parent_task_id = ${param()}`);
  if (roots) clauses.push("parent_task_id IS NULL");
  if (search) clauses.push(`strpos(objective_key, ${param()}) > 0`);
  if (cursor) {
    const [createdAt, taskId] = [param(), param()];
    clauses.push(`(created_at < ${createdAt} OR (created_at = ${createdAt} AND task_id < ${taskId}))`);
  }
  return `SELECT ${TASK_COLUMNS} FROM ${s}.tasks
    WHERE ${clauses.join(" AND ")}
    ORDER BY created_at DESC, task_id DESC
    LIMIT $2`;
}

export function queries(s: string) {
  /** The `listTasks` queries built so far, by their filters (see {@link listKey}). */
  const lists = new Map<string, string>();
  return {
    nowMs: `SELECT ${NOW_MS} AS now_ms`,
    /** The row, locked until the transaction ends: appends and lease changes on one task queue here. */
    lockTask: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE task_id = $1 FOR UPDATE`,
    /** The same, with the database clock read in the same round trip. */
    lockTaskNow: `SELECT ${TASK_COLUMNS}, ${NOW_MS} AS now_ms FROM ${s}.tasks WHERE task_id = $1 FOR UPDATE`,
    task: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE task_id = $1`,
    taskNo: `SELECT task_no FROM ${s}.tasks WHERE task_id = $1`,
    /**
     * A new task in one statement (one round trip, its own transaction): the row, stamped by the
     * database clock, its first events and their input index (the first stage of each input: a
     * copied log holds several), and the notifications. ON CONFLICT waits for a racing creator's
     * commit; then nothing is inserted and no row comes back: TaskExists. $11: the runnable
     * payload, or null. $12: the task it is a fork of, or null. $13, $14: the agent (or null) and
     * the objective's search key (`objectiveSearchKey`), from task_created.
     */
    createTask: `WITH clock AS (
        SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at
        FROM (SELECT clock_timestamp() AS t) AS c
      ), head AS (
        INSERT INTO ${s}.tasks (task_id, principal, parent_task_id, created_at, updated_at, last_seq,
          status, wants_worker, summary, forked_from, agent, objective_key)
        SELECT $1::text, $2::text, $3::text, clock.at, clock.at, $4::integer, $5::text, $6::boolean, $7::text,
          $12::text, $13::text, $14::text
        FROM clock
        ON CONFLICT (task_id) DO NOTHING RETURNING task_no, created_at AS at
      ), ins AS (
        INSERT INTO ${s}.events (task_no, seq, at, body)
        SELECT head.task_no, u.seq, head.at, u.body FROM head, unnest($8::integer[], $9::text[]) AS u (seq, body)
      ), inp AS (
        INSERT INTO ${s}.inputs (task_no, input_id, seq)
        SELECT head.task_no, u.input_id, min(u.seq) FROM head, unnest($8::integer[], $10::text[]) AS u (seq, input_id)
        WHERE u.input_id IS NOT NULL GROUP BY head.task_no, u.input_id
      )
      SELECT head.at, pg_notify('sema_events', $1::text || ':' || $4::integer),
        CASE WHEN $11::text IS NOT NULL THEN pg_notify('sema_runnable', $11) END FROM head`,
    notify: "SELECT pg_notify('sema_events', $1)",
    /** Workers listen here to claim at once: the payload is `<schema>:<taskId>`. */
    notifyRunnable: "SELECT pg_notify('sema_runnable', $1)",
    /**
     * An append's writes in one statement (one round trip): the events, the task row, the
     * notification. Data-modifying CTEs run whether or not the query reads them. $12: the task it
     * is a fork of, or null.
     */
    appendWrites: `WITH ins AS (
        INSERT INTO ${s}.events (task_no, seq, at, body)
        SELECT $1, u.seq, $2, u.body FROM unnest($3::integer[], $4::text[]) AS u (seq, body)
      ), upd AS (
        UPDATE ${s}.tasks SET last_seq = $5, updated_at = $2, summary = $6, status = $7, wants_worker = $8,
          forked_from = $12
        WHERE task_no = $1
      ), inp AS (
        INSERT INTO ${s}.inputs (task_no, input_id, seq)
        SELECT $1, u.input_id, u.seq FROM unnest($3::integer[], $11::text[]) AS u (seq, input_id)
        WHERE u.input_id IS NOT NULL ON CONFLICT DO NOTHING
      )
      SELECT pg_notify('sema_events', $9), CASE WHEN $10::text IS NOT NULL THEN pg_notify('sema_runnable', $10) END`,
    /**
     * An append in one statement (one round trip, its own transaction), when the caller knows the
     * task's summary text ($3): the row is updated only if it is still at seq $2 with that summary
     * and, given a token ($4), under that live lease. No row back: nothing was written, and the
     * locking path decides (and reports why). $12, $13: the notification payloads; $14 … $19 the
     * turns' usage (see `countUsage`), counted in the same statement; $20 the task it is a fork
     * of, or null.
     */
    appendIfUnchanged: `WITH clock AS (
        SELECT t AS now, ${ISO_OF("t")} AS at, ${HOUR_OF("t")} AS hour
        FROM (SELECT clock_timestamp() AS t) AS c
      ), head AS (
        UPDATE ${s}.tasks SET last_seq = $5, updated_at = clock.at, summary = $6, status = $7, wants_worker = $8,
          forked_from = $20
        FROM clock
        WHERE task_id = $1 AND last_seq = $2 AND summary = $3
          AND ($4::text IS NULL OR (lease_token = $4 AND lease_expires_at > clock.now))
        RETURNING task_no, task_id, principal, clock.at, clock.hour, lease_expires_at > clock.now AS leased
      ), ins AS (
        INSERT INTO ${s}.events (task_no, seq, at, body)
        SELECT head.task_no, u.seq, head.at, u.body FROM head, unnest($9::integer[], $10::text[]) AS u (seq, body)
      ), inp AS (
        INSERT INTO ${s}.inputs (task_no, input_id, seq)
        SELECT head.task_no, u.input_id, u.seq FROM head, unnest($9::integer[], $11::text[]) AS u (seq, input_id)
        WHERE u.input_id IS NOT NULL ON CONFLICT DO NOTHING
      ),${countUsage(s, { task: "$14", model: "$15", i: "$16", c: "$17", o: "$18", t: "$19" })}
      SELECT head.at, pg_notify('sema_events', $12),
        CASE WHEN $8 AND head.leased IS NOT TRUE THEN pg_notify('sema_runnable', $13) END
      FROM head`,
    /**
     * Group commit: many tasks' appends in one statement, one transaction (`appendIfUnchanged`
     * for a batch, one append per task). $1 … $9 are per append (task id, expected seq, the
     * summary text it was reduced from, lease token or null, new last seq, new summary, status,
     * wants a worker, the runnable payload); $10 … $13 per event (task id, seq, body, input id or
     * null); $14 … $19 per model turn, its usage (see `countUsage`), counted for the tasks
     * written; $20 per append again, the task it is a fork of or null. The rows are locked in
     * task-id order first, so two batches never deadlock. A task whose row moved is left out of
     * the result, with nothing of it written: the locking path decides (and reports why).
     */
    appendBatch: `WITH clock AS (
        SELECT t AS now, ${ISO_OF("t")} AS at, ${HOUR_OF("t")} AS hour
        FROM (SELECT clock_timestamp() AS t) AS c
      ), b AS (
        SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::integer[], $6::text[],
          $7::text[], $8::boolean[], $9::text[], $20::text[])
          AS b (task_id, expected, known, token, last_seq, summary, status, wants, runnable, forked_from)
      ), locked AS (
        SELECT task_no FROM ${s}.tasks WHERE task_id = ANY($1::text[]) ORDER BY task_id FOR UPDATE
      ), head AS (
        UPDATE ${s}.tasks t SET last_seq = b.last_seq, updated_at = clock.at, summary = b.summary,
          status = b.status, wants_worker = b.wants, forked_from = b.forked_from
        FROM b, clock, locked
        WHERE t.task_no = locked.task_no AND t.task_id = b.task_id AND t.last_seq = b.expected
          AND t.summary = b.known
          AND (b.token IS NULL OR (t.lease_token = b.token AND t.lease_expires_at > clock.now))
        RETURNING t.task_no, t.task_id, t.principal, clock.at, clock.hour, t.lease_expires_at > clock.now AS leased,
          b.last_seq, b.wants, b.runnable
      ), ev AS (
        SELECT * FROM unnest($10::text[], $11::integer[], $12::text[], $13::text[]) AS e (task_id, seq, body, input_id)
      ), ins AS (
        INSERT INTO ${s}.events (task_no, seq, at, body)
        SELECT head.task_no, ev.seq, head.at, ev.body FROM head JOIN ev ON ev.task_id = head.task_id
      ), inp AS (
        INSERT INTO ${s}.inputs (task_no, input_id, seq)
        SELECT head.task_no, ev.input_id, ev.seq FROM head JOIN ev ON ev.task_id = head.task_id
        WHERE ev.input_id IS NOT NULL ON CONFLICT DO NOTHING
      ),${countUsage(s, { task: "$14", model: "$15", i: "$16", c: "$17", o: "$18", t: "$19" })}
      SELECT head.task_id, head.at, pg_notify('sema_events', head.task_id || ':' || head.last_seq),
        CASE WHEN head.wants AND head.leased IS NOT TRUE THEN pg_notify('sema_runnable', head.runnable) END
      FROM head`,
    /**
     * Group commit for lease acquisitions: many tasks' leases taken in one statement, each only if
     * no other holder's lease is live at the database time (or it is held by the holder $4 itself,
     * or by $6, the holder to replace). $1 … $6 per lease: task id, token, holder JSON, holder id,
     * time to live in ms, replaced holder id or null. Rows are locked in task-id order first. A
     * task left out is decided alone on the locking path (`LeaseHeld`, `TaskNotFound`).
     */
    acquireLeases: `WITH clock AS (SELECT clock_timestamp() AS now), b AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::text[])
          AS b (task_id, token, holder, holder_id, ttl_ms, replace_id)
      ), locked AS (
        SELECT task_no FROM ${s}.tasks WHERE task_id = ANY($1::text[]) ORDER BY task_id FOR UPDATE
      ), upd AS (
        UPDATE ${s}.tasks t SET lease_token = b.token, lease_holder = b.holder,
          lease_expires_at = to_timestamp((${NOW_MS_OF("clock.now")} + b.ttl_ms) / 1000.0)
        FROM b, clock, locked
        WHERE t.task_no = locked.task_no AND t.task_id = b.task_id
          AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= clock.now
            OR t.lease_holder::json ->> 'id' = b.holder_id OR t.lease_holder::json ->> 'id' = b.replace_id)
        RETURNING t.task_id, t.lease_expires_at
      )
      SELECT task_id, ${NOW_MS_OF("lease_expires_at")} AS expires_ms FROM upd`,
    /**
     * Group commit for renewals: many live leases extended in one statement ($1 task ids, $2
     * tokens, $3 times to live in ms). A lease left out (expired, released, taken over) is
     * decided alone on the locking path (`LeaseLost`, `TaskNotFound`).
     */
    renewLeases: `WITH clock AS (SELECT clock_timestamp() AS now), b AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::float8[]) AS b (task_id, token, ttl_ms)
      ), locked AS (
        SELECT task_no FROM ${s}.tasks WHERE task_id = ANY($1::text[]) ORDER BY task_id FOR UPDATE
      ), upd AS (
        UPDATE ${s}.tasks t SET lease_expires_at = to_timestamp((${NOW_MS_OF("clock.now")} + b.ttl_ms) / 1000.0)
        FROM b, clock, locked
        WHERE t.task_no = locked.task_no AND t.task_id = b.task_id AND t.lease_token = b.token
          AND t.lease_expires_at > clock.now
        RETURNING t.task_id, t.lease_holder, t.lease_expires_at
      )
      SELECT task_id, lease_holder, ${NOW_MS_OF("lease_expires_at")} AS expires_ms FROM upd`,
    /**
     * Group commit for releases: many leases given up in one statement; the tasks released are
     * returned (a token that no longer holds its lease releases nothing).
     */
    releaseLeases: `UPDATE ${s}.tasks t SET lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL
      FROM unnest($1::text[], $2::text[]) AS r (task_id, token)
      WHERE t.task_id = r.task_id AND t.lease_token = r.token RETURNING t.task_id, t.wants_worker`,
    /** The first stage of each input (the key keeps only the first); ids null for other events. */
    findInput: `SELECT e.seq, e.at, e.body FROM ${s}.tasks t JOIN ${s}.inputs i ON i.task_no = t.task_no
      JOIN ${s}.events e ON e.task_no = i.task_no AND e.seq = i.seq WHERE t.task_id = $1 AND i.input_id = $2`,
    readEvents: `SELECT e.seq, e.at, e.body FROM ${s}.tasks t JOIN ${s}.events e ON e.task_no = t.task_no
      WHERE t.task_id = $1 AND e.seq > $2 ORDER BY e.seq LIMIT $3`,
    /**
     * Coalesced reads: many `read(taskId, { afterSeq, limit })` in one statement. $1 task ids, $2
     * afterSeqs, $3 limits (null: none), one per read (a task may appear more than once); each
     * read's events come back under its position `i` (1-based) in seq order, at most its limit.
     * A read of an unknown task gives one row with `found` false; of a task with nothing after
     * its seq, one row with a null seq.
     */
    readEventsBatch: `SELECT r.i::integer AS i, t.task_no IS NOT NULL AS found, e.seq, e.at, e.body
      FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS r (task_id, after_seq, lim, i)
      LEFT JOIN ${s}.tasks t ON t.task_id = r.task_id
      LEFT JOIN LATERAL (
        SELECT ev.seq, ev.at, ev.body FROM ${s}.events ev
        WHERE ev.task_no = t.task_no AND ev.seq > r.after_seq ORDER BY ev.seq LIMIT r.lim
      ) AS e ON true
      ORDER BY r.i, e.seq`,
    /** Coalesced `getTask`: the rows of the task ids $1 (an unknown one is simply absent). */
    tasksBatch: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks WHERE task_id = ANY($1::text[])`,
    /** Coalesced `latestSnapshot`: per task id of $1 found, its snapshot columns (null without one). */
    snapshotsBatch: `SELECT t.task_id, s.seq, s.v, s.state FROM ${s}.tasks t LEFT JOIN ${s}.snapshots s
      ON s.task_no = t.task_no WHERE t.task_id = ANY($1::text[])`,
    setLease: `UPDATE ${s}.tasks SET lease_token = $2, lease_holder = $3, lease_expires_at = $4 WHERE task_no = $1`,
    /** A claim's leases in one statement: one holder ($2) and expiry ($3), a token per task ($4). */
    setLeases: `UPDATE ${s}.tasks SET lease_token = u.token, lease_holder = $2, lease_expires_at = $3
      FROM unnest($1::bigint[], $4::text[]) AS u(task_no, token) WHERE ${s}.tasks.task_no = u.task_no`,
    releaseLease: `UPDATE ${s}.tasks SET lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL
      WHERE task_id = $1 AND lease_token = $2 RETURNING wants_worker`,
    /**
     * Candidates by the partial index, people first (`claim_at`, the store kit's `claimOrderKey`:
     * oldest activity first, a person's task a minute earlier; task_no breaks ties in creation
     * order), a page at a time after the position ($2, $3); `lease_expires_at <= $1` is
     * `!isLeaseLive` at the database time $1; none of the principals $5 (those listed enough).
     */
    runnable: `SELECT ${TASK_COLUMNS}, claim_at FROM ${s}.tasks
      WHERE wants_worker AND (lease_expires_at IS NULL OR lease_expires_at <= $1)
        AND (claim_at, task_no) > ($2, $3) AND principal <> ALL($5::text[])
      ORDER BY claim_at, task_no LIMIT $4`,
    /**
     * Lock listed candidates that are still unleased at the database time $2, skipping rows
     * another claimer has locked: concurrent claims split the work instead of queueing.
     */
    claim: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks
      WHERE task_id = ANY($1::text[]) AND wants_worker AND (lease_expires_at IS NULL OR lease_expires_at <= $2)
      ORDER BY claim_at, task_no LIMIT $3 FOR UPDATE SKIP LOCKED`,
    /**
     * A fair claim: candidates in the order given ($1, the fair order), locking only the first $3
     * it can get. Locking every candidate instead would hold rows a concurrent claimer then skips,
     * and it would come back empty while runnable tasks wait.
     */
    claimInOrder: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks
      WHERE task_id = ANY($1::text[]) AND wants_worker AND (lease_expires_at IS NULL OR lease_expires_at <= $2)
      ORDER BY array_position($1::text[], task_id) LIMIT $3 FOR UPDATE SKIP LOCKED`,
    /** Live leases at the database time (by the partial index) held on host $1, oldest activity first. */
    leasedOn: `SELECT ${TASK_COLUMNS} FROM ${s}.tasks
      WHERE lease_expires_at > clock_timestamp() AND lease_holder::json ->> 'host' = $1
      ORDER BY updated_at, task_no LIMIT $2`,
    /** The `listTasks` query with `filters`. */
    list: (filters: ListFilters): string => {
      const key = listKey(filters);
      let sql = lists.get(key);
      if (sql === undefined) {
        sql = listSql(s, filters);
        lists.set(key, sql);
      }
      return sql;
    },
    /** The upsert keeps the snapshot with the highest seq, whatever order writers arrive in. */
    putSnapshot: `INSERT INTO ${s}.snapshots (task_no, seq, v, state) VALUES ($1, $2, $3, $4)
      ON CONFLICT (task_no) DO UPDATE SET seq = excluded.seq, v = excluded.v, state = excluded.state
      WHERE excluded.seq >= ${s}.snapshots.seq`,
    snapshot: `SELECT t.task_id, s.seq, s.v, s.state FROM ${s}.tasks t LEFT JOIN ${s}.snapshots s
      ON s.task_no = t.task_no WHERE t.task_id = $1`,
    /** Content-addressed: the same digest is the same bytes, so a second put has nothing to change. */
    /** The bytes, or, when they are here already, the time of this put (see BLOB_GRACE_MS). */
    putBlob: `WITH added AS (
        INSERT INTO ${s}.blobs (digest, bytes) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING RETURNING digest
      )
      INSERT INTO ${s}.blob_puts (digest, put_at)
      SELECT $1, extract(epoch FROM clock_timestamp()) * 1000 WHERE NOT EXISTS (SELECT 1 FROM added)
      ON CONFLICT (digest) DO UPDATE SET put_at = excluded.put_at`,
    blob: `SELECT bytes FROM ${s}.blobs WHERE digest = $1`,
    /**
     * A new version of a record in one statement (its own transaction): the name's latest version
     * plus one, stamped by the database clock, written only if the put expects no version ($6
     * null; a bigint, as any safe integer the rules let through) or the latest. `latest` comes back always, `version` and `created_at` only when the row
     * was written. A racing put that took the same version first (committed after this statement's
     * snapshot) makes the primary key refuse the row (ON CONFLICT waits for it to commit): nothing
     * written and `latest` as this statement saw it, so the caller runs it again and sees that row.
     */
    putRecord: `WITH latest AS (
        SELECT coalesce((SELECT version FROM ${s}.records WHERE kind = $1::text AND principal = $2::text
          AND name = $3::text ORDER BY version DESC LIMIT 1), 0) AS version
      ), ins AS (
        INSERT INTO ${s}.records (kind, principal, name, version, created_at, meta, body)
        SELECT $1::text, $2::text, $3::text, latest.version + 1, ${ISO_OF("clock_timestamp()")}, $4::text, $5::text
        FROM latest WHERE $6::bigint IS NULL OR latest.version = $6::bigint
        ON CONFLICT (kind, principal, name, version) DO NOTHING
        RETURNING version, created_at
      )
      SELECT latest.version AS latest, ins.version, ins.created_at FROM latest LEFT JOIN ins ON true`,
    /** A record's latest version, body included: one backward step of the primary key. */
    latestRecord: `SELECT name, version, created_at, meta, body FROM ${s}.records
      WHERE kind = $1 AND principal = $2 AND name = $3 ORDER BY version DESC LIMIT 1`,
    /** One version of a record; $4 a bigint, so a version past the column's range finds nothing, not an error. */
    recordVersion: `SELECT name, version, created_at, meta, body FROM ${s}.records
      WHERE kind = $1 AND principal = $2 AND name = $3 AND version = $4::bigint`,
    /**
     * The latest version of each record name of ($1 kind, $2 principal) after $3 ('' for the first
     * page), in name order (COLLATE "C", the column's: byte order), at most $4 names. The names
     * are found one at a time, each the next after the last by one descent of the primary key (a
     * loose index scan; the recursion runs only as far as the LIMIT reads), so a page costs one
     * descent per name however many versions each has, and one more for each name's latest.
     */
    listRecords: `WITH RECURSIVE names (name) AS (
        SELECT (SELECT name FROM ${s}.records WHERE kind = $1 AND principal = $2 AND name > $3
          ORDER BY name LIMIT 1)
        UNION ALL
        SELECT (SELECT r.name FROM ${s}.records r WHERE r.kind = $1 AND r.principal = $2 AND r.name > names.name
          ORDER BY r.name LIMIT 1)
        FROM names WHERE names.name IS NOT NULL
      )
      SELECT l.name, l.version, l.created_at, l.meta
      FROM (SELECT name FROM names WHERE name IS NOT NULL LIMIT $4) AS n
      CROSS JOIN LATERAL (
        SELECT r.name, r.version, r.created_at, r.meta FROM ${s}.records r
        WHERE r.kind = $1 AND r.principal = $2 AND r.name = n.name ORDER BY r.version DESC LIMIT 1
      ) AS l
      ORDER BY l.name`,
  };
}

export type Queries = ReturnType<typeof queries>;

function listKey(filters: ListFilters): string {
  return Object.values(filters).join(" ");
}

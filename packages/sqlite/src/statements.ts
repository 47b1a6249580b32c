/**
 * Every statement the store runs, prepared once per connection: preparing costs more than running
 * a small statement, and an append runs four of them.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { PERSON_HEAD_START_MS } from "@sema-agent/core/store-kit";
import { type EventRow, TASK_COLUMNS } from "./rows.ts";

/**
 * Rows per multi-row INSERT. One statement per chunk instead of one per event halves the work of
 * a batched append (measured: 100 events, ~180 µs → ~95 µs), the crossing into SQLite being the
 * cost; 32 keeps the bound parameters (4 per row) and the statement cache small.
 */
export const INSERT_CHUNK = 32;

/** Which filters a `listTasks` query has (each adds its clause and named parameter). */
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
 * Listing order newest first by (created_at, task_id); the cursor clause mirrors `isAfterCursor`.
 * The search is `instr`, not LIKE: the caller's text has no wildcards.
 */
function listSql({ status, forkedFrom, agent, parent, roots, search, cursor }: ListFilters): string {
  return `SELECT ${TASK_COLUMNS} FROM tasks
    WHERE principal = :principal
    ${status ? "AND status = :status" : ""}
    ${forkedFrom ? "AND forked_from = :forkedFrom" : ""}
    ${agent ? "AND agent = :agent" : ""}
    ${parent ? "AND parent_task_id = :parentTaskId" : ""}
    ${roots ? "AND parent_task_id IS NULL" : ""}
    ${search ? "AND instr(objective_key, :search) > 0" : ""}
    ${cursor ? "AND (created_at < :createdAt OR (created_at = :createdAt AND task_id < :taskId))" : ""}
    ORDER BY created_at DESC, task_id DESC
    LIMIT :limit`;
}

/**
 * `countChildren`: the children of each parent in :ids (a JSON array of task ids) among
 * :principal's tasks, one search of `tasks_by_parent` per parent (no row is read, the index
 * covers the query); a parent without children has no row.
 */
export const COUNT_CHILDREN = `SELECT parent_task_id AS id, count(*) AS n FROM tasks
    WHERE principal = :principal AND parent_task_id IN (SELECT value FROM json_each(:ids))
    GROUP BY parent_task_id`;

/**
 * The latest version of each record name of (:kind, :principal) after :after ('' for the first
 * page), in name order, at most :limit names. The names are found one at a time, each the next
 * after the last by one search of the primary key (a loose index scan), so a page costs one
 * search per name however many versions each name has; each name's latest version is one more.
 * CROSS JOIN keeps the names the outer loop (a plain join lets the planner scan all the
 * principal's records instead). BINARY comparison: byte order.
 */
export const LIST_RECORDS = `WITH RECURSIVE names (name) AS (
    SELECT (SELECT name FROM records WHERE kind = :kind AND principal = :principal AND name > :after
      ORDER BY name LIMIT 1)
    UNION ALL
    SELECT (SELECT r.name FROM records r WHERE r.kind = :kind AND r.principal = :principal AND r.name > names.name
      ORDER BY r.name LIMIT 1)
    FROM names WHERE names.name IS NOT NULL
    LIMIT :limit
  )
  SELECT r.name, r.version, r.created_at, r.meta FROM names
  CROSS JOIN records r ON r.kind = :kind AND r.principal = :principal AND r.name = names.name
    AND r.version = (SELECT max(m.version) FROM records m
      WHERE m.kind = :kind AND m.principal = :principal AND m.name = names.name)
  ORDER BY r.name`;

export class Statements {
  readonly #db: DatabaseSync;
  /** `INSERT INTO events` of n rows, by n (1 … INSERT_CHUNK), prepared on first use. */
  readonly #inserts = new Map<number, StatementSync>();
  /** `listTasks` queries, by their filters, prepared on first use. */
  readonly #lists = new Map<string, StatementSync>();
  /** Statements of `cached`, by their text. */
  readonly #rare = new Map<string, StatementSync>();

  readonly begin: StatementSync;
  readonly commit: StatementSync;
  /** One write's savepoint inside a group commit's transaction (see `BatchWriter`). */
  readonly savepoint: StatementSync;
  readonly releaseSavepoint: StatementSync;
  readonly rollbackToSavepoint: StatementSync;
  readonly task: StatementSync;
  /** `AppendHead` by task id. */
  readonly appendHead: StatementSync;
  readonly taskNo: StatementSync;
  readonly insertTask: StatementSync;
  /** The hot path: the summary unchanged (most events), so neither it nor an index is touched. */
  readonly advanceSeq: StatementSync;
  /** Status, runnability and fork source unchanged, so no index is touched. */
  readonly advance: StatementSync;
  readonly advanceWithState: StatementSync;
  readonly #readEvents: StatementSync;
  readonly #eventRowsAreArrays: boolean;
  readonly insertInput: StatementSync;
  /** A blob a content part of the task's names (migration 13: the store writes these, no trigger). */
  readonly insertBlobRef: StatementSync;
  readonly findInput: StatementSync;
  readonly setLease: StatementSync;
  readonly releaseLease: StatementSync;
  readonly runnable: StatementSync;
  readonly leasedOn: StatementSync;
  readonly putSnapshot: StatementSync;
  readonly snapshot: StatementSync;
  readonly putBlob: StatementSync;
  /** When a blob already here was last put again (see BLOB_GRACE_MS). */
  readonly putBlobAt: StatementSync;
  readonly blob: StatementSync;
  /** The latest version of a record's name (null when it has none), read inside the write transaction of a put. */
  readonly recordHead: StatementSync;
  readonly insertRecord: StatementSync;
  /** A record's latest version, body included. */
  readonly latestRecord: StatementSync;
  readonly recordVersion: StatementSync;
  /** `listRecords`: see {@link LIST_RECORDS}. */
  readonly listRecords: StatementSync;
  /** The largest event's JSON this connection writes (`ContentTooLarge` above); the store sets it. */
  maxEventBytes = Number.POSITIVE_INFINITY;
  /** Changes when another connection (this process or another) commits; see `CommitPoller`. */
  readonly dataVersion: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.begin = db.prepare("BEGIN IMMEDIATE");
    this.commit = db.prepare("COMMIT");
    this.savepoint = db.prepare("SAVEPOINT write");
    this.releaseSavepoint = db.prepare("RELEASE write");
    this.rollbackToSavepoint = db.prepare("ROLLBACK TO write");
    this.task = db.prepare(`SELECT ${TASK_COLUMNS} FROM tasks WHERE task_id = ?`);
    this.taskNo = db.prepare("SELECT task_no FROM tasks WHERE task_id = ?");
    this.insertTask = db.prepare(
      `INSERT INTO tasks (task_id, principal, parent_task_id, created_at, updated_at, last_seq, status,
        wants_worker, summary, forked_from, agent, objective_key, person_lane)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (task_id) DO NOTHING`,
    );
    this.appendHead = db.prepare(
      "SELECT task_no, last_seq, summary, lease_token, lease_expires_at FROM tasks WHERE task_id = ?",
    );
    this.advanceSeq = db.prepare("UPDATE tasks SET last_seq = ?, updated_at = ? WHERE task_no = ?");
    this.advance = db.prepare("UPDATE tasks SET last_seq = ?, updated_at = ?, summary = ? WHERE task_no = ?");
    this.advanceWithState = db.prepare(
      `UPDATE tasks SET last_seq = ?, updated_at = ?, summary = ?, status = ?, wants_worker = ?, forked_from = ?,
        person_lane = ? WHERE task_no = ?`,
    );
    this.#readEvents = db.prepare(
      `SELECT e.seq, e.at, e.body FROM tasks t JOIN events e ON e.task_no = t.task_no
        WHERE t.task_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`,
    );
    // Rows as arrays are cheaper to build than objects; node:sqlite has offered them since Node 24.
    this.#eventRowsAreArrays = typeof this.#readEvents.setReturnArrays === "function";
    if (this.#eventRowsAreArrays) this.#readEvents.setReturnArrays(true);
    this.insertInput = db.prepare("INSERT OR IGNORE INTO inputs (task_no, input_id, seq) VALUES (?, ?, ?)");
    this.insertBlobRef = db.prepare("INSERT OR IGNORE INTO blob_refs (digest, task_no) VALUES (?, ?)");
    this.findInput = db.prepare(
      `SELECT e.seq, e.at, e.body FROM tasks t JOIN inputs i ON i.task_no = t.task_no
        JOIN events e ON e.task_no = i.task_no AND e.seq = i.seq WHERE t.task_id = ? AND i.input_id = ?`,
    );
    this.setLease = db.prepare(
      "UPDATE tasks SET lease_token = ?, lease_holder = ?, lease_expires_at = ? WHERE task_no = ?",
    );
    this.releaseLease = db.prepare(
      `UPDATE tasks SET lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL
        WHERE task_id = ? AND lease_token = ?`,
    );
    // The partial index gives the candidates; `lease_expires_at <= now` is `!isLeaseLive`. People
    // first, as MemoryStore lists them (`claimOrderKey`): oldest activity first, a person's task
    // (`person_lane`) as if active PERSON_HEAD_START_MS earlier; task_no breaks ties in creation
    // order. No LIMIT: the caller steps through it and stops once it has enough that the rule accepts.
    this.runnable = db.prepare(
      `SELECT ${TASK_COLUMNS} FROM tasks
        WHERE wants_worker = 1 AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
        ORDER BY CASE WHEN person_lane = 1
          THEN strftime('%Y-%m-%dT%H:%M:%fZ', updated_at, '-${PERSON_HEAD_START_MS / 1000} seconds')
          ELSE updated_at END, task_no`,
    );
    // Live leases (by the partial index) held on a host; the holder is JSON text.
    this.leasedOn = db.prepare(
      `SELECT ${TASK_COLUMNS} FROM tasks
        WHERE lease_expires_at > ? AND lease_holder ->> '$.host' = ?
        ORDER BY updated_at, task_no LIMIT ?`,
    );
    this.putSnapshot = db.prepare(
      `INSERT INTO snapshots (task_no, seq, v, state) VALUES (?, ?, ?, ?)
        ON CONFLICT (task_no) DO UPDATE SET seq = excluded.seq, v = excluded.v, state = excluded.state
        WHERE excluded.seq >= snapshots.seq`,
    );
    this.snapshot = db.prepare(
      `SELECT t.task_id, s.seq, s.v, s.state FROM tasks t LEFT JOIN snapshots s ON s.task_no = t.task_no
        WHERE t.task_id = ?`,
    );
    // Content-addressed: the same digest is the same bytes, so a second put has nothing to change.
    this.putBlob = db.prepare("INSERT INTO blobs (digest, bytes) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING");
    this.putBlobAt = db.prepare(
      "INSERT INTO blob_puts (digest, put_at) VALUES (?, ?) ON CONFLICT (digest) DO UPDATE SET put_at = excluded.put_at",
    );
    this.blob = db.prepare("SELECT bytes FROM blobs WHERE digest = ?");
    // The primary key (kind, principal, name, version) serves these: max() is one search of it.
    this.recordHead = db.prepare(
      "SELECT max(version) AS version FROM records WHERE kind = ? AND principal = ? AND name = ?",
    );
    this.insertRecord = db.prepare(
      `INSERT INTO records (kind, principal, name, version, created_at, meta, body)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.latestRecord = db.prepare(
      `SELECT name, version, created_at, meta, body FROM records
        WHERE kind = ? AND principal = ? AND name = ? ORDER BY version DESC LIMIT 1`,
    );
    this.recordVersion = db.prepare(
      `SELECT name, version, created_at, meta, body FROM records
        WHERE kind = ? AND principal = ? AND name = ? AND version = ?`,
    );
    this.listRecords = db.prepare(LIST_RECORDS);
    this.dataVersion = db.prepare("PRAGMA data_version");
  }

  /** Events of a task with `seq > afterSeq`, in order, at most `limit` (-1: all). */
  eventRows(taskId: string, afterSeq: number, limit: number): EventRow[] {
    const rows = this.#readEvents.all(taskId, afterSeq, limit);
    if (this.#eventRowsAreArrays) return rows as unknown as EventRow[];
    return (rows as Array<{ seq: number; at: string; body: string }>).map((row) => [row.seq, row.at, row.body]);
  }

  /** The `listTasks` query with `filters`. */
  list(filters: ListFilters): StatementSync {
    const key = Object.values(filters).join(" ");
    let statement = this.#lists.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(listSql(filters));
      this.#lists.set(key, statement);
    }
    return statement;
  }

  /** The statement of `text`, prepared on first use: for the rare operations (deletion, stats), not the hot path. */
  cached(text: string): StatementSync {
    let statement = this.#rare.get(text);
    if (statement === undefined) {
      statement = this.#db.prepare(text);
      this.#rare.set(text, statement);
    }
    return statement;
  }

  /** The INSERT of `rows` events (1 … INSERT_CHUNK); parameters are task_no, seq, at, body per row. */
  insertEvents(rows: number): StatementSync {
    let statement = this.#inserts.get(rows);
    if (statement === undefined) {
      const values = Array.from({ length: rows }, () => "(?, ?, ?, ?)").join(", ");
      statement = this.#db.prepare(`INSERT INTO events (task_no, seq, at, body) VALUES ${values}`);
      this.#inserts.set(rows, statement);
    }
    return statement;
  }
}

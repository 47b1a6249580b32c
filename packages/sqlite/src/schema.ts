/**
 * The database schema as an ordered list of migrations, applied in one transaction when a store
 * opens. `schema_migrations` records every version applied, so opening is idempotent, two
 * processes opening one fresh file do not both migrate it, and a file written by newer code is
 * refused instead of being misread.
 */
import type { DatabaseSync } from "node:sqlite";
import { StoreUnavailableError } from "@sema-agent/core/protocol";

/** One step of the schema. Versions are 1, 2, 3 … with no gaps; a released step never changes. */
export interface Migration {
  version: number;
  /** What the step does, for the `schema_migrations` row and for people reading the file. */
  name: string;
  sql: string;
}

/** Every migration of the SQLite schema, in version order; a store applies those its file lacks when it opens. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tasks, events, snapshots",
    // STRICT tables make SQLite enforce the column types the adapter relies on when it reads rows.
    sql: `
      CREATE TABLE tasks (
        -- The events table is keyed by this small integer, not the 36-character task id: every
        -- event row is that much smaller, and every append writes fewer bytes.
        task_no INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL UNIQUE,
        principal TEXT NOT NULL,
        parent_task_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_seq INTEGER NOT NULL,
        status TEXT NOT NULL,
        -- 1 when the summary wants a worker once no lease is live; the lease is checked at query time.
        wants_worker INTEGER NOT NULL,
        summary TEXT NOT NULL,
        lease_token TEXT,
        lease_holder TEXT,
        lease_expires_at INTEGER
      ) STRICT;
      CREATE INDEX tasks_by_principal ON tasks (principal, created_at DESC, task_id DESC);
      CREATE INDEX tasks_by_principal_status ON tasks (principal, status, created_at DESC, task_id DESC);
      -- Partial, so tasks nobody needs to run (most of them, over time) cost it nothing; keyed on
      -- the flag itself so that an append that leaves the flag alone leaves the index alone.
      CREATE INDEX tasks_runnable ON tasks (wants_worker) WHERE wants_worker = 1;

      -- One row per event: identity in columns, the event's own keys as JSON in body; reads
      -- rebuild the stamped event with stampEvent. No generated type column: SQLite evaluates
      -- it on every insert (measured: a third of the insert's cost); query body ->> '$.type'.
      CREATE TABLE events (
        task_no INTEGER NOT NULL REFERENCES tasks (task_no),
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (task_no, seq)
      ) STRICT, WITHOUT ROWID;

      -- Only the latest snapshot per task is ever read, so only that one is kept. A rowid table,
      -- because a folded state can be large and WITHOUT ROWID suits small rows only.
      CREATE TABLE snapshots (
        task_no INTEGER PRIMARY KEY REFERENCES tasks (task_no),
        seq INTEGER NOT NULL,
        v INTEGER NOT NULL,
        state TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: "inputs by id",
    // An idempotent send asks whether its input id was seen; without this it read the whole log.
    // Only the first stage of each input is indexed; backfilled from the events already stored.
    sql: `
      CREATE TABLE inputs (
        task_no INTEGER NOT NULL REFERENCES tasks (task_no),
        input_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (task_no, input_id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO inputs (task_no, input_id, seq)
        SELECT task_no, body ->> '$.inputId', min(seq) FROM events
        WHERE body ->> '$.type' = 'human_input'
        GROUP BY task_no, body ->> '$.inputId';
    `,
  },
  {
    version: 3,
    name: "snapshots deflated",
    // A snapshot holds the folded transcript, so it grows with the task (a fifth of the file at
    // 1,000 turns); deflated it is a twelfth of that. Snapshots are a cache: the old ones are
    // dropped, not converted, and each task's next leg folds from the start once and stores a new one.
    sql: `
      DROP TABLE snapshots;
      CREATE TABLE snapshots (
        task_no INTEGER PRIMARY KEY REFERENCES tasks (task_no),
        seq INTEGER NOT NULL,
        v INTEGER NOT NULL,
        -- deflate (raw, RFC 1951) of the state's JSON text
        state BLOB NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 4,
    name: "leases by expiry",
    // A starting worker looks for live leases its machine's dead processes held; released leases
    // are NULL, so the index holds only the tasks being run.
    sql: `
      CREATE INDEX tasks_leased ON tasks (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: "blobs",
    // The bytes of image and file parts, stored once by their SHA-256 whatever the number of
    // tasks referencing them; the log holds only the digest. A rowid table: blobs can be large.
    sql: `
      CREATE TABLE blobs (
        digest TEXT PRIMARY KEY,
        bytes BLOB NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 6,
    name: "usage counters",
    // Quotas per principal: tokens per principal, hour (UTC, ISO text) and model, moved by each
    // append's turns in its transaction; and the active root tasks a creation's quota counts.
    sql: `
      CREATE TABLE usage_counters (
        principal TEXT NOT NULL,
        hour TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        cached_input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        turns INTEGER NOT NULL,
        PRIMARY KEY (principal, hour, model)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX tasks_active ON tasks (principal)
        WHERE parent_task_id IS NULL AND status IN ('created', 'running');
    `,
  },
  {
    version: 7,
    name: "tasks by fork source",
    // listTasks({ forkedFrom }): the summary's forkedFrom.taskId, in a column of its own as status
    // is, written with the summary when it changes. Not an index on the summary's JSON, nor a
    // generated column: SQLite would parse the summary on every append that rewrites it. Partial,
    // so tasks that are not forks (most) cost the index nothing; backfilled from the summaries.
    sql: `
      ALTER TABLE tasks ADD COLUMN forked_from TEXT;
      UPDATE tasks SET forked_from = summary ->> '$.forkedFrom.taskId'
        WHERE instr(summary, '"forkedFrom"') > 0;
      CREATE INDEX tasks_by_fork_source ON tasks (principal, forked_from, created_at DESC, task_id DESC)
        WHERE forked_from IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: "records",
    // Store.putRecord: every version of a principal's named records (datasets, experiments),
    // never overwritten. The primary key is also the index lists walk: the next name after a
    // cursor is one search of it, and so is that name's latest version (see Statements.listRecords).
    // Names compare as BINARY, byte order, as the memory store sorts them. Meta and body are JSON
    // text (a body may hold "\u0000" escaped); a rowid table, because a body can be large.
    sql: `
      CREATE TABLE records (
        kind TEXT NOT NULL,
        principal TEXT NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        meta TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (kind, principal, name, version)
      ) STRICT;
    `,
  },
  {
    version: 9,
    name: "finished tasks and families",
    // Retention lists finished root tasks oldest change first, and deletes each with its
    // descendants: without these, each page and each family would scan the whole tasks table.
    // Partial, so live tasks and root tasks cost the indexes nothing.
    sql: `
      CREATE INDEX tasks_finished ON tasks (updated_at, task_id)
        WHERE parent_task_id IS NULL AND status IN ('completed', 'failed', 'cancelled');
      CREATE INDEX tasks_children ON tasks (parent_task_id) WHERE parent_task_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: "tasks by agent, parent and objective",
    // listTasks({ agent, parentTaskId, objectiveContains }): the agent and the objective's search
    // key (objectiveSearchKey: its first 1,000 characters, lowered) from task_created, written once
    // when the task is created and never again. Agent and parent get indexes in listing order; the
    // search key none (a substring is no B-tree prefix): a search walks the principal's tasks newest
    // first and stops at the page's end, each row's test bounded by the key's length. sema_lower
    // is JavaScript's toLowerCase (see migrate), so backfilled keys match those written since.
    sql: `
      ALTER TABLE tasks ADD COLUMN agent TEXT;
      ALTER TABLE tasks ADD COLUMN objective_key TEXT;
      UPDATE tasks SET agent = e.body ->> '$.agent',
          objective_key = sema_lower(substr(e.body ->> '$.objective', 1, 1000))
        FROM events e WHERE e.task_no = tasks.task_no AND e.seq = 1;
      CREATE INDEX tasks_by_agent ON tasks (principal, agent, created_at DESC, task_id DESC)
        WHERE agent IS NOT NULL;
      CREATE INDEX tasks_by_parent ON tasks (principal, parent_task_id, created_at DESC, task_id DESC)
        WHERE parent_task_id IS NOT NULL;
    `,
  },
  {
    version: 11,
    name: "people first in the runnable order",
    // 1 when the summary's lane is \`person\` (laneOfSummary: a new task, a person's input, a decided
    // approval, a resume request): the runnable listing gives such a task a head start. Written
    // with wants_worker; backfilled here for the tasks that want a worker, by the same rule.
    sql: `
      ALTER TABLE tasks ADD COLUMN person_lane INTEGER NOT NULL DEFAULT 0;
      UPDATE tasks SET person_lane = 1 WHERE wants_worker = 1 AND (
        status = 'created'
        OR summary ->> '$.resumeRequested' = 1
        OR (status = 'parked' AND summary ->> '$.parkedReason' = 'approval'
          AND json_array_length(summary, '$.openApprovals') = 0)
        OR EXISTS (SELECT 1 FROM json_each(summary, '$.openInputs') WHERE value <> 'wake'));
    `,
  },
  {
    version: 12,
    name: "blob references and puts",
    // Deleting a task asks, of each blob it referenced, whether another task still does: without
    // an index of references that was a scan of every event per blob. blob_refs holds each digest
    // an event names (any "digest" key with a text value: a superset of blobDigests, so a blob is
    // never deleted while referenced), filled by a trigger on the events' insert, which costs an
    // append one instr() over its body unless the body names a digest. blob_puts holds when each
    // blob was last put again (its bytes already here), so a prune keeps bytes uploaded for an
    // event not yet appended (BLOB_GRACE_MS). Backfilled from the events already stored; existing blobs have no put time.
    sql: `
      CREATE TABLE blob_refs (
        digest TEXT NOT NULL,
        task_no INTEGER NOT NULL,
        PRIMARY KEY (digest, task_no)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX blob_refs_by_task ON blob_refs (task_no);
      INSERT OR IGNORE INTO blob_refs (digest, task_no)
        SELECT j.value, e.task_no FROM events e, json_tree(e.body) j
        WHERE instr(e.body, '"digest"') > 0 AND j.key = 'digest' AND j.type = 'text';
      CREATE TRIGGER events_blob_refs AFTER INSERT ON events WHEN instr(NEW.body, '"digest"') > 0
      BEGIN
        INSERT OR IGNORE INTO blob_refs (digest, task_no)
          SELECT value, NEW.task_no FROM json_tree(NEW.body) WHERE key = 'digest' AND type = 'text';
      END;
      CREATE TABLE blob_puts (
        digest TEXT PRIMARY KEY,
        put_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 13,
    name: "blob references of content parts only",
    // Schema 12's trigger took any "digest" member for a reference, so every approval and every
    // model_turn v 2 (its request digests) added rows naming no blob, and cost its append a
    // json_tree() walk; and any trigger on events cost every insert about 14 µs on a file (bench
    // blob-refs-trigger.ts), even with its WHEN false. A blob is named by the digest of an object in
    // a human_input's attachments or a user_message's parts (blobDigests of the store kit): the
    // store now writes those references itself, in the insert's transaction (write-events.ts), and
    // the trigger is gone. The references are rebuilt from the events that can hold one, which
    // drops the wrong rows.
    sql: `
      DROP TRIGGER IF EXISTS events_blob_refs;
      DELETE FROM blob_refs;
      INSERT OR IGNORE INTO blob_refs (digest, task_no)
        SELECT json_extract(p.value, '$.digest'), e.task_no
        FROM events e, json_each(e.body, CASE json_extract(e.body, '$.type')
            WHEN 'human_input' THEN '$.attachments' WHEN 'user_message' THEN '$.parts' ELSE '$.none' END) AS p
        WHERE instr(e.body, '"digest"') > 0
          AND (instr(e.body, '"human_input"') > 0 OR instr(e.body, '"user_message"') > 0)
          AND p.type = 'object' AND json_type(p.value, '$.digest') = 'text';
    `,
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((max, migration) => Math.max(max, migration.version), 0);

/**
 * Bring the database to `SCHEMA_VERSION`, or refuse it (`StoreUnavailable`) when it is newer. The
 * caller has set the busy timeout, so a second process opening the same file waits here.
 */
export function migrate(db: DatabaseSync, now: () => number): void {
  // IMMEDIATE takes the write lock before reading the version, so two openers cannot both migrate.
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY NOT NULL,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get();
    const current = typeof row?.version === "number" ? row.version : 0;
    if (current > SCHEMA_VERSION) {
      throw new StoreUnavailableError(
        `the database schema is at version ${current}, newer than the ${SCHEMA_VERSION} this @sema-agent/sqlite knows; ` +
          "upgrade @sema-agent/sqlite to open it (it was not modified)",
      );
    }
    // Backfills lower text as the store does when it writes (String.prototype.toLowerCase, all of
    // Unicode); SQLite's own lower() folds ASCII only.
    db.function("sema_lower", { deterministic: true }, (text) =>
      typeof text === "string" ? text.toLowerCase() : null,
    );
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date(now()).toISOString());
    }
    db.exec("COMMIT");
  } catch (error) {
    rollback(db);
    throw error;
  }
}

/** Roll back if a transaction is open; a failure here must not mask the error that led to it. */
export function rollback(db: DatabaseSync): void {
  try {
    db.exec("ROLLBACK");
  } catch {
    // No transaction was open (SQLite may already have rolled back), or the handle is gone.
  }
}

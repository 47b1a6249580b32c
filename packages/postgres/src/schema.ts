/**
 * The database schema as an ordered list of migrations, applied in one transaction when a store
 * opens. The transaction first takes an advisory lock for the schema, so two nodes starting at
 * once against an empty database migrate it once: the second waits, then finds the work done.
 * `sema_schema_migrations` records every version applied, and a schema written by newer code is
 * refused instead of being misread.
 */
import { StoreUnavailableError } from "@sema-agent/core/protocol";
import type { ClientBase } from "pg";

/** One step of the schema. Versions are 1, 2, 3 … with no gaps; a released step never changes. */
export interface Migration {
  version: number;
  /** What the step does, for the `sema_schema_migrations` row and for people reading the file. */
  name: string;
  /** The statements, with `{schema}` standing for the quoted schema name. */
  sql: string;
}

/**
 * Every migration of the PostgreSQL schema, in version order; a store applies those the schema lacks
 * when it opens, under an advisory lock.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "tasks, events, snapshots",
    // JSON columns are text, not jsonb: jsonb reorders keys and normalizes numbers, and the log
    // must give back exactly what was appended. Times the port compares as strings (created_at,
    // updated_at, at) are the ISO text it hands out; the lease expiry is a timestamptz, because
    // the database's clock decides it.
    sql: `
      CREATE TABLE {schema}.tasks (
        -- Events are keyed by this small integer, not the task id: every event row is smaller.
        task_no bigserial PRIMARY KEY,
        task_id text NOT NULL UNIQUE,
        principal text NOT NULL,
        parent_task_id text,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        last_seq integer NOT NULL,
        status text NOT NULL,
        -- True when the summary wants a worker once no lease is live; the lease is checked at query time.
        wants_worker boolean NOT NULL,
        summary text NOT NULL,
        lease_token text,
        lease_holder text,
        lease_expires_at timestamptz
      );
      CREATE INDEX tasks_by_principal ON {schema}.tasks (principal, created_at DESC, task_id DESC);
      CREATE INDEX tasks_by_principal_status ON {schema}.tasks (principal, status, created_at DESC, task_id DESC);
      -- Partial, so tasks nobody needs to run (most of them, over time) cost it nothing.
      CREATE INDEX tasks_runnable ON {schema}.tasks (updated_at, task_no) WHERE wants_worker;

      -- The primary key is also what rejects a second writer of the same seq.
      CREATE TABLE {schema}.events (
        task_no bigint NOT NULL REFERENCES {schema}.tasks (task_no),
        seq integer NOT NULL,
        at text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (task_no, seq)
      );

      -- Only the latest snapshot per task is ever read, so only that one is kept.
      CREATE TABLE {schema}.snapshots (
        task_no bigint PRIMARY KEY REFERENCES {schema}.tasks (task_no),
        seq integer NOT NULL,
        v integer NOT NULL,
        state text NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: "inputs by id",
    // An idempotent send asks whether its input id was seen; without this it read the whole log.
    // Only the first stage of each input is indexed; backfilled from the events already stored.
    sql: `
      CREATE TABLE {schema}.inputs (
        task_no bigint NOT NULL REFERENCES {schema}.tasks (task_no),
        input_id text NOT NULL,
        seq integer NOT NULL,
        PRIMARY KEY (task_no, input_id)
      );
      INSERT INTO {schema}.inputs (task_no, input_id, seq)
        SELECT task_no, body::json ->> 'inputId', min(seq) FROM {schema}.events
        WHERE body::json ->> 'type' = 'human_input'
        GROUP BY task_no, body::json ->> 'inputId';
    `,
  },
  {
    version: 3,
    name: "leases by expiry",
    // A starting worker looks for live leases its machine's dead processes held; released leases
    // are NULL, so the index holds only the tasks being run.
    sql: `
      CREATE INDEX tasks_leased ON {schema}.tasks (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: "blobs",
    // The bytes of image and file parts, stored once by their SHA-256 whatever the number of
    // tasks referencing them; the log holds only the digest.
    sql: `
      CREATE TABLE {schema}.blobs (
        digest text PRIMARY KEY,
        bytes bytea NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: "usage counters",
    // Quotas per principal: tokens per principal, hour (UTC, ISO text) and model, moved by each
    // append's turns in its transaction; and the active root tasks a creation's quota counts.
    sql: `
      CREATE TABLE {schema}.usage_counters (
        principal text NOT NULL,
        hour text NOT NULL,
        model text NOT NULL,
        input_tokens bigint NOT NULL,
        cached_input_tokens bigint NOT NULL,
        output_tokens bigint NOT NULL,
        turns integer NOT NULL,
        PRIMARY KEY (principal, hour, model)
      );
      CREATE INDEX tasks_active ON {schema}.tasks (principal)
        WHERE parent_task_id IS NULL AND status IN ('created', 'running');
    `,
  },
  {
    version: 6,
    name: "tasks by fork source",
    // listTasks({ forkedFrom }): the summary's forkedFrom.taskId, in a column of its own as status
    // is, written with the summary. Not an expression index on the summary, nor a generated
    // column: the database would parse the summary's JSON on every append that rewrites it. A
    // nullable column without a default is added without rewriting the table; the index is
    // partial, so tasks that are not forks (most) cost it nothing. Backfilled from the summaries.
    sql: `
      ALTER TABLE {schema}.tasks ADD COLUMN forked_from text;
      UPDATE {schema}.tasks SET forked_from = summary::json -> 'forkedFrom' ->> 'taskId'
        WHERE strpos(summary, '"forkedFrom"') > 0;
      CREATE INDEX tasks_by_fork_source ON {schema}.tasks (principal, forked_from, created_at DESC, task_id DESC)
        WHERE forked_from IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: "records",
    // Store.putRecord: every version of a principal's named records (datasets, experiments),
    // never overwritten. The primary key rejects a second row of one version, whoever wrote it
    // (see putRecord in queries.ts), and is also the index lists walk: the next name after a
    // cursor is one descent of it, and so is that name's latest version. Names are COLLATE "C":
    // byte order, as the other stores sort them, whatever the database's collation. Meta and
    // body are text, not jsonb: a body may hold "\u0000", which jsonb refuses.
    sql: `
      CREATE TABLE {schema}.records (
        kind text NOT NULL,
        principal text NOT NULL,
        name text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        created_at text NOT NULL,
        meta text NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (kind, principal, name, version)
      );
    `,
  },
  {
    version: 8,
    name: "finished tasks and families",
    // Retention lists finished root tasks oldest change first, and deletes each with its
    // descendants: without these, each page and each family would scan the whole tasks table.
    // Partial, so live tasks and root tasks cost the indexes nothing.
    sql: `
      CREATE INDEX tasks_finished ON {schema}.tasks (updated_at, task_id)
        WHERE parent_task_id IS NULL AND status IN ('completed', 'failed', 'cancelled');
      CREATE INDEX tasks_children ON {schema}.tasks (parent_task_id) WHERE parent_task_id IS NOT NULL;
    `,
  },
  {
    version: 9,
    name: "tasks by agent, parent and objective",
    // listTasks({ agent, parentTaskId, objectiveContains }): the agent and the objective's search
    // key (objectiveSearchKey: its first 1,000 characters, lowered) from task_created, written once
    // when the task is created and never again; nullable columns without defaults are added without
    // rewriting the table. Agent and parent get indexes in listing order; the search key none (a
    // substring is no B-tree prefix, and pg_trgm is an extension not every server has): a search
    // walks the principal's tasks newest first and stops at the page's end, each row's test
    // bounded by the key's length. The backfill lowers with the database's lower(), which folds
    // what the database's locale knows (all of Unicode under a UTF-8 locale, ASCII under C).
    sql: `
      ALTER TABLE {schema}.tasks ADD COLUMN agent text;
      ALTER TABLE {schema}.tasks ADD COLUMN objective_key text;
      UPDATE {schema}.tasks t SET agent = e.body::json ->> 'agent',
          objective_key = lower(left(e.body::json ->> 'objective', 1000))
        FROM {schema}.events e WHERE e.task_no = t.task_no AND e.seq = 1;
      CREATE INDEX tasks_by_agent ON {schema}.tasks (principal, agent, created_at DESC, task_id DESC)
        WHERE agent IS NOT NULL;
      CREATE INDEX tasks_by_parent ON {schema}.tasks (principal, parent_task_id, created_at DESC, task_id DESC)
        WHERE parent_task_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: "people first in the runnable order",
    // The runnable order's key (claimOrderKey of the store kit), kept by the database itself from
    // the row on every write, so no write path passes it: updated_at, less a minute
    // (PERSON_HEAD_START_MS) when the summary's lane is \`person\` (laneOfSummary: a new task, a
    // person's input, a decided approval, a resume request). sema_claim_at is declared immutable
    // (a generated column needs it): its input is always the ISO-8601 UTC text the store writes.
    sql: `
      CREATE FUNCTION {schema}.sema_claim_at(updated_at text, status text, summary text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE WHEN status = 'created'
              OR (s ->> 'resumeRequested') = 'true'
              OR (status = 'parked' AND s ->> 'parkedReason' = 'approval'
                AND jsonb_array_length(s -> 'openApprovals') = 0)
              OR jsonb_path_exists(s, '$.openInputs.* ? (@ != "wake")')
            THEN to_char((updated_at::timestamptz - interval '60 seconds') AT TIME ZONE 'UTC',
              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
            ELSE updated_at END
          FROM (SELECT summary::jsonb AS s) AS parsed
        $$;
      ALTER TABLE {schema}.tasks ADD COLUMN claim_at text
        GENERATED ALWAYS AS ({schema}.sema_claim_at(updated_at, status, summary)) STORED;
      CREATE INDEX tasks_claim_order ON {schema}.tasks (claim_at, task_no) WHERE wants_worker;
      DROP INDEX {schema}.tasks_runnable;
    `,
  },
  {
    version: 11,
    name: "blob references and puts",
    // Deleting a task asks, of each blob it referenced, whether another task still does: without
    // an index of references that was a scan of every event per blob. blob_refs holds each digest
    // an event names (any "digest" member with a string value: a superset of blobDigests, so a blob
    // is never deleted while referenced), filled by a trigger on the events' insert, which costs an
    // append one strpos() over its body unless the body names a digest. blob_puts holds when each
    // blob was last put again, its bytes already here (ms since the epoch), so a prune keeps bytes
    // uploaded for an event not yet appended (BLOB_GRACE_MS). Backfilled from the events stored; existing blobs have no put time.
    sql: `
      CREATE TABLE {schema}.blob_refs (
        digest text NOT NULL,
        task_no bigint NOT NULL,
        PRIMARY KEY (digest, task_no)
      );
      CREATE INDEX blob_refs_by_task ON {schema}.blob_refs (task_no);
      INSERT INTO {schema}.blob_refs (digest, task_no)
        SELECT DISTINCT d #>> '{}', e.task_no
        FROM {schema}.events e, jsonb_path_query(e.body::jsonb, 'lax $.**.digest') AS d
        WHERE strpos(e.body, '"digest"') > 0 AND jsonb_typeof(d) = 'string'
        ON CONFLICT DO NOTHING;
      CREATE FUNCTION {schema}.events_blob_refs() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO {schema}.blob_refs (digest, task_no)
          SELECT DISTINCT d #>> '{}', NEW.task_no FROM jsonb_path_query(NEW.body::jsonb, 'lax $.**.digest') AS d
          WHERE jsonb_typeof(d) = 'string'
          ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$;
      CREATE TRIGGER events_blob_refs AFTER INSERT ON {schema}.events FOR EACH ROW
        WHEN (strpos(NEW.body, '"digest"') > 0) EXECUTE FUNCTION {schema}.events_blob_refs();
      CREATE TABLE {schema}.blob_puts (
        digest text PRIMARY KEY,
        put_at float8 NOT NULL
      );
    `,
  },
  {
    version: 12,
    name: "blob references of content parts only",
    // Schema 11's trigger took any "digest" member for a reference, so every approval and every
    // model_turn v 2 (its request digests) added rows naming no blob, and cost its append a parse
    // of its body as jsonb. A blob is named by the digest of an object in a human_input's
    // attachments or a user_message's parts (blobDigests of the store kit), and only those are
    // references now (the trigger reads that one array; sema_blob_digests, the same rule as a
    // function, backfills): the trigger runs when the body names a digest and one of
    // those two types (three strpos() tests; an event without "digest" still costs one). The
    // references are rebuilt from the events that can hold one, which drops the wrong rows.
    sql: `
      CREATE FUNCTION {schema}.sema_blob_digests(body jsonb) RETURNS SETOF text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT p ->> 'digest' FROM jsonb_array_elements(CASE
              WHEN body ->> 'type' = 'human_input' AND jsonb_typeof(body -> 'attachments') = 'array'
                THEN body -> 'attachments'
              WHEN body ->> 'type' = 'user_message' AND jsonb_typeof(body -> 'parts') = 'array'
                THEN body -> 'parts'
              ELSE '[]'::jsonb END) AS p
          WHERE jsonb_typeof(p -> 'digest') = 'string'
        $$;
      CREATE OR REPLACE FUNCTION {schema}.events_blob_refs() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        body jsonb := NEW.body::jsonb;
        parts jsonb := CASE body ->> 'type' WHEN 'human_input' THEN body -> 'attachments'
          WHEN 'user_message' THEN body -> 'parts' END;
      BEGIN
        IF jsonb_typeof(parts) = 'array' THEN
          INSERT INTO {schema}.blob_refs (digest, task_no)
            SELECT DISTINCT p ->> 'digest', NEW.task_no FROM jsonb_array_elements(parts) AS p
            WHERE jsonb_typeof(p -> 'digest') = 'string'
            ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
      END $$;
      DROP TRIGGER events_blob_refs ON {schema}.events;
      CREATE TRIGGER events_blob_refs AFTER INSERT ON {schema}.events FOR EACH ROW
        WHEN (strpos(NEW.body, '"digest"') > 0
          AND (strpos(NEW.body, '"human_input"') > 0 OR strpos(NEW.body, '"user_message"') > 0))
        EXECUTE FUNCTION {schema}.events_blob_refs();
      DELETE FROM {schema}.blob_refs;
      INSERT INTO {schema}.blob_refs (digest, task_no)
        SELECT DISTINCT d, e.task_no FROM {schema}.events e, {schema}.sema_blob_digests(e.body::jsonb) AS d
        WHERE strpos(e.body, '"digest"') > 0
          AND (strpos(e.body, '"human_input"') > 0 OR strpos(e.body, '"user_message"') > 0)
        ON CONFLICT DO NOTHING;
    `,
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((max, migration) => Math.max(max, migration.version), 0);

/**
 * Bring `schema` to `SCHEMA_VERSION` on `client`, or refuse it (`StoreUnavailable`) when it is
 * newer. `quoted` is the schema name already quoted as an identifier.
 */
export async function migrate(
  client: ClientBase,
  schema: string,
  quoted: string,
  /** For tests that build an older schema. */
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  await client.query("BEGIN");
  try {
    // Held until COMMIT/ROLLBACK; keyed by the schema so stores on different schemas never wait.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('sema_schema_migrations'), hashtext($1))", [schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.sema_schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const result = await client.query<{ version: number | null }>(
      `SELECT max(version) AS version FROM ${quoted}.sema_schema_migrations`,
    );
    const current = result.rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new StoreUnavailableError(
        `the database schema ${schema} is at version ${current}, newer than the ${SCHEMA_VERSION} this ` +
          "@sema-agent/postgres knows; upgrade @sema-agent/postgres to open it (it was not modified)",
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql.replaceAll("{schema}", quoted));
      await client.query(`INSERT INTO ${quoted}.sema_schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

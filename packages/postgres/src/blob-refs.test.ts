/**
 * The blob references on PostgreSQL: the events' insert trigger takes the digests of content
 * parts only (schema 12: a human_input's attachments, a user_message's parts), never an approval's
 * or a model turn's request digests, and a schema that schema 11 left loses its wrong rows.
 */
import type { TaskEvent } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const image = "1".repeat(64);
const file = "2".repeat(64);
const events: TaskEvent[] = [
  {
    type: "approval_requested",
    v: 1,
    legId: "l1",
    callId: "c1",
    name: "echo",
    inputJson: "{}",
    digest: "a".repeat(64),
  },
  {
    ...make.turn(1),
    v: 2,
    request: {
      digest: "b".repeat(64),
      system: "c".repeat(64),
      tools: "d".repeat(64),
      settings: "e".repeat(64),
      transcript: "f".repeat(64),
      entries: 1,
    },
  },
  make.imageInput(image, 4),
  {
    type: "user_message",
    v: 2,
    entryId: "e1",
    content: "look",
    inputIds: ["i1"],
    parts: [
      { type: "text", text: "look" },
      { type: "file", digest: file, mediaType: "application/pdf", size: 9 },
    ],
  },
];

async function refs(schema: string): Promise<string[]> {
  return withClient(async (client) =>
    (await client.query<{ digest: string }>(`SELECT digest FROM "${schema}".blob_refs ORDER BY digest`)).rows.map(
      (row) => row.digest,
    ),
  );
}

describe.skipIf(skip)("blob references on PostgreSQL", () => {
  it("hold the digests of content parts only, and a schema 11 left loses its wrong rows", async () => {
    const schema = freshSchema();
    cleanups.push(() => dropSchema(schema));
    const store = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    const [created] = await store.createTask({ created: make.created("p1") });
    await store.append(created?.taskId ?? "", events, { expectedSeq: 1 });
    await store.close();
    expect(await refs(schema)).toEqual([image, file]);
    // The schema as schema 11 left it: its trigger took any "digest" member.
    await withClient((client) =>
      client.query(`INSERT INTO "${schema}".blob_refs (digest, task_no) SELECT '${"a".repeat(64)}', task_no
          FROM "${schema}".tasks;
        DELETE FROM "${schema}".sema_schema_migrations WHERE version = 12;
        DROP FUNCTION "${schema}".sema_blob_digests(jsonb) CASCADE;`),
    );
    expect(await refs(schema)).toHaveLength(3);
    const again = await PostgresStore.open({ connectionString: POSTGRES_URL, schema });
    cleanups.push(() => again.close());
    expect(await refs(schema)).toEqual([image, file]);
  });
});

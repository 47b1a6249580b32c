/**
 * `GET /v1/tasks/{id}` over a real socket reads the same few events whatever the log's length:
 * never the whole log, never a snapshot (whose parse is as long as the transcript).
 */
import { MemoryStore, type TaskEvent } from "@sema-agent/core";
import { afterEach, describe, expect, it } from "vitest";
import { type Listening, listen } from "../node/listen.ts";
import { TaskDetail } from "../schemas/tasks.ts";
import { APPROVAL_SCRIPT, apiFixture, createTask, runOnce } from "../test-support/api-fixture.ts";

/** A MemoryStore that counts what reads hand out. */
class CountingStore extends MemoryStore {
  eventsRead = 0;
  snapshotsRead = 0;
  override async read(...args: Parameters<MemoryStore["read"]>) {
    const events = await super.read(...args);
    this.eventsRead += events.length;
    return events;
  }
  override async latestSnapshot(taskId: string) {
    this.snapshotsRead += 1;
    return super.latestSnapshot(taskId);
  }
}

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A task parked on an approval after `filler` transcript entries of 1 KB; what one GET of it read. */
async function oneGet(filler: number) {
  const store = new CountingStore();
  const fx = await apiFixture({ store, turns: APPROVAL_SCRIPT });
  const taskId = await createTask(fx, "Write it");
  const padding: TaskEvent[] = Array.from({ length: filler }, (_, i) => ({
    type: "user_message",
    v: 1,
    entryId: `pad-${i}`,
    content: "x".repeat(1024),
    inputIds: [],
  }));
  for (let start = 0; start < padding.length; start += 500) {
    const { lastSeq } = await store.getTask(taskId);
    await store.append(taskId, padding.slice(start, start + 500), { expectedSeq: lastSeq });
  }
  await runOnce(fx, taskId);
  server = await listen(fx.app, { port: 0 });
  const before = { events: store.eventsRead, snapshots: store.snapshotsRead };
  const response = await fetch(`${server.url}/v1/tasks/${taskId}`, {
    headers: { authorization: `Bearer ${fx.tokens.alice}` },
  });
  expect(response.status).toBe(200);
  const detail = TaskDetail.parse(await response.json());
  const read = { events: store.eventsRead - before.events, snapshots: store.snapshotsRead - before.snapshots };
  await server.close();
  server = undefined;
  return { detail, read, lastSeq: (await store.getTask(taskId)).lastSeq };
}

describe("GET /v1/tasks/{id} cost", () => {
  it("reads the same few events for a 5 MB log as for a tiny one, and no snapshot", async () => {
    const tiny = await oneGet(0);
    const long = await oneGet(5_000);
    expect(long.lastSeq).toBeGreaterThan(5_000);
    for (const { detail } of [tiny, long]) {
      expect(detail).toMatchObject({ objective: "Write it", status: "parked", parkedReason: "approval" });
      expect(detail.pendingApprovals.map((approval) => approval.callId)).toEqual(["call-1"]);
    }
    expect(long.read).toEqual(tiny.read);
    expect(long.read).toEqual({ events: 2, snapshots: 0 });
  });
});

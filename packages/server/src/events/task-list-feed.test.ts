import { MemoryStore } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskListFeed } from "./task-list-feed.ts";
import { TaskListSubscriber } from "./task-list-stream.ts";

/** A memory store whose change listener the test can also call (as another process's commit would). */
class TellingStore extends MemoryStore {
  tell: ((taskId: string | undefined) => void) | undefined;
  override onTaskChange(listener: (taskId: string | undefined) => void): () => void {
    this.tell = listener;
    return super.onTaskChange(listener);
  }
}

const decoder = new TextDecoder();

/** Everything the subscriber has queued, as text. */
function drain(subscriber: TaskListSubscriber): string {
  let text = "";
  for (let chunk = subscriber.poll(); chunk instanceof Uint8Array; chunk = subscriber.poll())
    text += decoder.decode(chunk);
  return text;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("TaskListFeed", () => {
  it("hands each change to its principal's listeners once, and unsubscribes from the store with the last", async () => {
    const store = new TellingStore();
    const feed = new TaskListFeed(store);
    const seen: string[] = [];
    const stop = feed.subscribe("alice", { changed: (record) => seen.push(record.taskId), resync: () => {} });
    const [created] = await store.createTask({ created: make.created("alice") });
    await store.createTask({ created: make.created("bob") });
    await vi.waitFor(() => expect(seen).toEqual([created?.taskId]));
    // The same seq named again (a notification heard twice) is not news.
    store.tell?.(created?.taskId);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toHaveLength(1);
    expect(feed.listeners).toBe(1);
    stop();
    expect(feed.listeners).toBe(0);
  });

  it("tells every stream to resync when changes are unnamed, at most once per resyncMs", () => {
    vi.useFakeTimers();
    let now = 10_000;
    const store = new TellingStore();
    const feed = new TaskListFeed(store, { resyncMs: 1000, now: () => now });
    let resyncs = 0;
    feed.subscribe("alice", { changed: () => {}, resync: () => resyncs++ });
    store.tell?.(undefined);
    expect(resyncs).toBe(1);
    store.tell?.(undefined);
    store.tell?.(undefined);
    expect(resyncs).toBe(1);
    now += 1000;
    vi.advanceTimersByTime(1000);
    expect(resyncs).toBe(2);
  });
});

describe("TaskListSubscriber", () => {
  it("sends heartbeats, and ends with stream_overflow past its byte budget", () => {
    vi.useFakeTimers();
    const store = new TellingStore();
    const feed = new TaskListFeed(store, { resyncMs: 0, now: () => 0 });
    const subscriber = new TaskListSubscriber({
      feed,
      principal: "alice",
      filter: {},
      heartbeatMs: 1000,
      maxBufferedBytes: 200,
    });
    subscriber.start();
    expect(drain(subscriber)).toBe("retry: 1000\n\n");
    vi.advanceTimersByTime(1000);
    expect(drain(subscriber)).toBe(": heartbeat\n\n");
    // A client that never reads: resyncs pile up past 200 bytes.
    for (let i = 0; i < 10; i++) store.tell?.(undefined);
    const text = drain(subscriber);
    expect(text).toContain("event: stream_overflow");
    expect(text).not.toContain("resync");
    expect(subscriber.poll()).toBeNull();
    expect(feed.listeners).toBe(0);
  });
});

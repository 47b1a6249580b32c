import { MemoryStore } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";
import { countingStore, settle } from "../test-support/counting-store.ts";
import { FrameReader, parseFrames, readFrames, type SseFrame } from "../test-support/sse-frames.ts";

const stored = (frames: SseFrame[]) => frames.filter((f) => f.id !== undefined);

describe("GET /v1/tasks/:taskId/events", () => {
  it("streams every stored event with id = seq and event = type, and ends after the terminal event", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const events = await fx.store.read(taskId);
    const response = await fx.call("GET", `/v1/tasks/${taskId}/events`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const { frames, ended } = await readFrames(response);
    expect(ended).toBe(true);
    expect(frames[0]?.retry).toBeDefined();
    expect(stored(frames).map((f) => [Number(f.id), f.event])).toEqual(events.map((e) => [e.seq, e.type]));
    expect(stored(frames).map((f) => JSON.parse(f.data ?? ""))).toEqual(events);
  });

  it("resumes after Last-Event-ID (or ?after=) with nothing repeated; 204 when nothing follows", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const last = (await fx.store.getTask(taskId)).lastSeq;
    const viaHeader = await readFrames(
      await fx.call("GET", `/v1/tasks/${taskId}/events?after=1`, { headers: { "last-event-id": "3" } }),
    );
    expect(stored(viaHeader.frames).map((f) => Number(f.id))).toEqual(range(4, last));
    const viaQuery = await readFrames(await fx.call("GET", `/v1/tasks/${taskId}/events?after=2`));
    expect(stored(viaQuery.frames).map((f) => Number(f.id))).toEqual(range(3, last));
    const done = await fx.call("GET", `/v1/tasks/${taskId}/events`, { headers: { "last-event-id": String(last) } });
    expect(done.status).toBe(204);
  });

  it("follows a running task live, with ephemeral deltas (no id) between stored events", async () => {
    const fx = await apiFixture({ turns: [{ text: "Hello there, world", chunkSize: 4, deltaDelayMs: 5 }] });
    const taskId = await createTask(fx);
    const response = await fx.call("GET", `/v1/tasks/${taskId}/events`);
    const reader = new FrameReader(response);
    // The stream has caught up on what is stored (it then follows live) before the leg starts.
    const before = (await fx.store.getTask(taskId)).lastSeq;
    await reader.until((got) => stored(got).some((f) => Number(f.id) === before));
    await runOnce(fx, taskId);
    const frames = await reader.toEnd();
    expect(reader.ended).toBe(true);
    const deltas = frames.filter((f) => f.event === "text_delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.every((f) => f.id === undefined)).toBe(true);
    expect(deltas.map((f) => JSON.parse(f.data ?? "").delta).join("")).toBe("Hello there, world");
    const ids = stored(frames).map((f) => Number(f.id));
    expect(ids).toEqual(range(1, (await fx.store.getTask(taskId)).lastSeq));
    // Each delta comes after the leg started and before the turn it belongs to was stored.
    const firstDelta = frames.findIndex((f) => f.event === "text_delta");
    expect(frames.findIndex((f) => f.event === "leg_started")).toBeLessThan(firstDelta);
    expect(frames.findIndex((f) => f.event === "model_turn")).toBeGreaterThan(firstDelta);
    expect(fx.hub.subscribers(taskId)).toBe(0);
  });

  it("cuts a client that stops reading at its byte budget, saying so; it resumes by Last-Event-ID and loses nothing", async () => {
    const fx = await apiFixture({
      turns: [{ text: "Hello there, world", chunkSize: 2 }],
      app: { limits: { sseMaxBufferedBytes: 600 } },
    });
    const taskId = await createTask(fx);
    const reader = (await fx.call("GET", `/v1/tasks/${taskId}/events`)).body?.getReader();
    if (reader === undefined) throw new Error("no body");
    // Read until level with the log (the stream is live), then stop reading while the task runs.
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes("event: task_created")) text += decoder.decode((await reader.read()).value);
    await runOnce(fx, taskId);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    const frames = parseFrames(text);
    const last = frames.at(-1);
    expect(last?.event).toBe("stream_overflow");
    const overflow = JSON.parse(last?.data ?? "");
    expect(overflow).toMatchObject({ reason: "stream_budget", limitBytes: 600 });
    const got = stored(frames).map((f) => Number(f.id));
    expect(overflow.lastSeq).toBe(got.at(-1));
    const rest = await readFrames(
      await fx.call("GET", `/v1/tasks/${taskId}/events`, { headers: { "last-event-id": String(overflow.lastSeq) } }),
    );
    const all = (await fx.store.read(taskId)).map((e) => e.seq);
    expect([...got, ...stored(rest.frames).map((f) => Number(f.id))]).toEqual(all);
  });

  it("reads the log at the client's pace: a client that never reads costs a page, not the log", async () => {
    const { store, counts } = countingStore(new MemoryStore());
    const fx = await apiFixture({ store });
    const taskId = await createTask(fx);
    // A 10 MB log: 2,000 events of 5 KB.
    let seq = (await store.getTask(taskId)).lastSeq;
    for (let i = 0; i < 20; i++) {
      const batch = Array.from({ length: 100 }, (_, j) => make.note(`${i * 100 + j} ${"x".repeat(5000)}`));
      seq = (await store.append(taskId, batch, { expectedSeq: seq })).at(-1)?.seq ?? seq;
    }
    const response = await fx.call("GET", `/v1/tasks/${taskId}/events`);
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.read();
    const before = counts.eventsOut;
    await settle(() => counts.eventsOut);
    // What it took out of the store for the two chunks read: a page or two, never the 2,000.
    expect(counts.eventsOut).toBeLessThan(200);
    expect(counts.eventsOut).toBe(before);
    await reader?.cancel();
  });

  it("serves every caught-up subscriber of a task from one tail of the store", async () => {
    const { store, counts } = countingStore(new MemoryStore());
    const fx = await apiFixture({ store });
    const taskId = await createTask(fx);
    const readers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const reader = (await fx.call("GET", `/v1/tasks/${taskId}/events`)).body?.getReader();
        if (reader === undefined) throw new Error("no body");
        return reader;
      }),
    );
    // Each reads the retry frame and the stored log, and is then live.
    for (const reader of readers) {
      let text = "";
      while (!text.includes("event: task_created")) text += new TextDecoder().decode((await reader.read()).value);
    }
    const outBefore = counts.eventsOut;
    let seq = (await store.getTask(taskId)).lastSeq;
    for (let i = 0; i < 5; i++)
      seq = (await store.append(taskId, [make.note(`n${i}`)], { expectedSeq: seq }))[0]?.seq ?? seq;
    for (const reader of readers) {
      let text = "";
      while (!text.includes(`id: ${seq}\n`)) text += new TextDecoder().decode((await reader.read()).value);
    }
    // Five new events left the store five times in all (one tail), not five times per subscriber.
    expect(counts.watches).toBe(1);
    expect(counts.eventsOut - outBefore).toBe(5);
    for (const reader of readers) await reader.cancel();
  });

  it("sends heartbeat comments on an idle stream", async () => {
    const fx = await apiFixture({ app: { limits: { heartbeatMs: 20 } } });
    const taskId = await createTask(fx);
    const { frames } = await readFrames(await fx.call("GET", `/v1/tasks/${taskId}/events`), (seen) =>
      seen.some((f) => f.comment === "heartbeat"),
    );
    expect(frames.some((f) => f.comment === "heartbeat")).toBe(true);
  });

  it("pages stored events as JSON with format=json", async () => {
    const fx = await apiFixture();
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const all = await fx.store.read(taskId);
    const first = await json<{ events: { seq: number }[]; nextAfter?: number }>(
      await fx.call("GET", `/v1/tasks/${taskId}/events?format=json&limit=2`),
    );
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.nextAfter).toBe(2);
    const rest = await json<{ events: { seq: number }[]; nextAfter?: number }>(
      await fx.call("GET", `/v1/tasks/${taskId}/events?format=json&after=2&limit=1000`),
    );
    expect(rest.events.map((e) => e.seq)).toEqual(all.slice(2).map((e) => e.seq));
    expect(rest.nextAfter).toBeUndefined();
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

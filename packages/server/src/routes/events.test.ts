import { describe, expect, it } from "vitest";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";
import { readFrames, type SseFrame } from "../test-support/sse-frames.ts";

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
    const reading = readFrames(response);
    // Let the stream catch up on the stored events before the leg starts emitting deltas.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await runOnce(fx, taskId);
    const { frames, ended } = await reading;
    expect(ended).toBe(true);
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

  it("ends the stream of a client that does not keep up; it resumes by Last-Event-ID and loses nothing", async () => {
    const fx = await apiFixture({ app: { limits: { sseMaxQueuedFrames: 2 } } });
    const taskId = await createTask(fx);
    await runOnce(fx, taskId);
    const last = (await fx.store.getTask(taskId)).lastSeq;
    const response = await fx.call("GET", `/v1/tasks/${taskId}/events`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await readFrames(response);
    expect(first.ended).toBe(true);
    const got = stored(first.frames).map((f) => Number(f.id));
    expect(got.length).toBeLessThan(last);
    const rest = await readFrames(
      await fx.call("GET", `/v1/tasks/${taskId}/events`, { headers: { "last-event-id": String(got.at(-1)) } }),
    );
    expect([...got, ...stored(rest.frames).map((f) => Number(f.id))]).toEqual(range(1, last));
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

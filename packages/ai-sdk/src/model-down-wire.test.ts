/**
 * A provider that is down, on the wire: the real `@ai-sdk/anthropic` provider (through
 * `resolveModel`, retries included) against a loopback port that refuses connections, then
 * against the replay server opened again on that port. The task parks as `parked:model` with its
 * timer, and the next leg completes it with the request the first one could not send.
 */
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveModel } from "./resolve-model.ts";
import { type ReplayServer, sseEvents, startReplayServer } from "./test-support/replay-server.ts";

const ENV = { ANTHROPIC_API_KEY: "sk-ant-test-key" };
const T0 = Date.parse("2026-12-01T12:00:00.000Z");

let server: ReplayServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

describe("a model that is down, on the wire", () => {
  it("parks the task (parked:model) while the port refuses, and the next leg completes it", async () => {
    // Only the clock is faked (the sockets are real): the timer's due time is then exact.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(T0);
    // Open a server to learn a free port, then close it: the port now refuses connections.
    const probe = await startReplayServer();
    const { port } = new URL(probe.baseURL);
    await probe.close();

    const baseURL = `http://127.0.0.1:${port}/v1`;
    // The model's own retries (one here, with no wait) are outlasted first.
    const model = resolveModel(
      "anthropic:claude-sonnet-4-5",
      { ...ENV, ANTHROPIC_BASE_URL: baseURL },
      { retry: { maxRetries: 1, sleep: async () => {} } },
    );
    const store = new MemoryStore();
    const agent = { model, modelBackoff: { baseMs: 5_000, maxMs: 60_000 } };
    const taskId = await startTask(store, { objective: "Say hi" });

    const parked = await runLeg({ store, agent }, taskId);
    expect(parked).toMatchObject({ status: "parked", parkedReason: "model" });
    const { summary } = await store.getTask(taskId);
    expect(summary).toMatchObject({ parkedReason: "model", parkedDetail: "connection" });
    expect(summary.timers).toEqual({ [`model-wait:${parked.legId}`]: T0 + 5_000 });
    const events = await store.read(taskId);
    const retries = events.filter((e) => e.type === "engine_note" && e.kind === "model_retry");
    expect(retries).toHaveLength(1);
    const note = events.find((e) => e.type === "engine_note" && e.kind === "model_unavailable");
    const refused = `Cannot connect to API: connect ECONNREFUSED 127.0.0.1:${port} (connection)`;
    expect(note?.type === "engine_note" && note.text).toContain(refused);
    // The socket error is said once, not once more as the cause of the SDK's error.
    expect(note?.type === "engine_note" && note.text.split("ECONNREFUSED").length).toBe(2);

    // The provider is back, on the same port; the timer falls due and a host runs the next leg.
    server = await startReplayServer("/v1", Number(port));
    server.reply({ events: sseEvents("anthropic/text.sse") });
    vi.setSystemTime(T0 + 5_000);
    expect((await store.listRunnable()).map((r) => r.taskId)).toEqual([taskId]);
    const done = await runLeg({ store, agent }, taskId);
    expect(done).toMatchObject({ status: "completed" });
    expect(done.result).not.toBe("");
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]?.body ?? "")).toMatchObject({
      messages: [{ role: "user", content: [{ type: "text", text: "Say hi" }] }],
    });
    expect((await store.getTask(taskId)).summary.timers).toEqual({});
  });
});

import { MemoryStore } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { TaskListItem } from "../schemas/tasks.ts";
import { apiFixture, createTask, json, runOnce } from "../test-support/api-fixture.ts";
import { FrameReader, type SseFrame } from "../test-support/sse-frames.ts";

/** The items of the `event: task` frames read so far. */
function items(frames: readonly SseFrame[]) {
  return frames
    .filter((frame) => frame.event === "task")
    .map((frame) => TaskListItem.parse(JSON.parse(frame.data ?? "")));
}

describe("GET /v1/tasks/stream", () => {
  it("sends the caller's tasks as they are created and change, never another principal's", async () => {
    const fx = await apiFixture();
    const response = await fx.call("GET", "/v1/tasks/stream");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = new FrameReader(response);
    await createTask(fx, "theirs", fx.tokens.mallory);
    const taskId = await createTask(fx, "Summarize");
    await reader.until((frames) => items(frames).some((item) => item.taskId === taskId));
    await runOnce(fx, taskId);
    await reader.until((frames) => items(frames).some((item) => item.status === "completed"));
    const seen = items(reader.frames);
    expect(seen.every((item) => item.taskId === taskId)).toBe(true);
    expect(seen[0]).toMatchObject({
      objective: "Summarize",
      agent: "default",
      createdBy: { actorId: "alice" },
      childCount: 0,
    });
    expect(seen.at(-1)?.usage.inputTokens).toBeGreaterThan(0);
    // No ids: a client that reconnects lists again.
    expect(reader.frames.every((frame) => frame.id === undefined)).toBe(true);
    await reader.cancel();
  });

  it("sends only the tasks that pass its filters", async () => {
    const fx = await apiFixture();
    const reader = new FrameReader(await fx.call("GET", "/v1/tasks/stream?status=completed&roots=true"));
    const first = await createTask(fx, "one");
    const second = await createTask(fx, "two");
    const [child] = await fx.store.createTask({
      created: { type: "task_created", v: 1, objective: "kid", principal: "acme", parentTaskId: first },
    });
    await runOnce(fx, second);
    await reader.until((frames) => items(frames).length > 0);
    // The listener sees changes in order: all of the above were dispatched before the completion.
    expect(items(reader.frames).map((item) => [item.taskId, item.status])).toEqual([[second, "completed"]]);
    expect(child).toBeDefined();
    await reader.cancel();
  });

  it("ends with token_revoked when its token is revoked", async () => {
    const fx = await apiFixture();
    const carol = await fx.tokenStore.create({ principal: "acme", actorId: "carol" });
    const reader = new FrameReader(await fx.call("GET", "/v1/tasks/stream", { token: carol.token }));
    await reader.until((frames) => frames.some((frame) => frame.retry !== undefined));
    expect(await fx.tokenStore.revoke(carol.record.tokenId)).toBe(true);
    const frames = await reader.toEnd();
    expect(frames.at(-1)?.event).toBe("token_revoked");
    expect(reader.ended).toBe(true);
  });

  it("holds at most maxTaskListStreams open per principal: a 429 past it, a slot again once one closes", async () => {
    const fx = await apiFixture({ app: { limits: { maxTaskListStreams: 2 } } });
    const open = async (token = fx.tokens.alice) => {
      const response = await fx.call("GET", "/v1/tasks/stream", { token });
      expect(response.status).toBe(200);
      const reader = new FrameReader(response);
      await reader.until((frames) => frames.some((frame) => frame.retry !== undefined));
      return reader;
    };
    const first = await open();
    const second = await open(fx.tokens.bob); // bob is acme too: the limit is the principal's
    const refused = await fx.call("GET", "/v1/tasks/stream");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    const body = await json<{ error: { code: string; details: Record<string, unknown> } }>(refused);
    expect(body.error).toMatchObject({ code: "RateLimited", details: { maxTaskListStreams: 2 } });
    // Another principal's streams are its own.
    const theirs = await open(fx.tokens.mallory);
    // A stream the client closes gives its slot back.
    await first.cancel();
    await expect
      .poll(async () => {
        const response = await fx.call("GET", "/v1/tasks/stream");
        await response.body?.cancel();
        return response.status;
      })
      .toBe(200);
    await Promise.all([second.cancel(), theirs.cancel()]);
  });

  it("gives a slot back when the stream ends by itself (a revoked token)", async () => {
    const fx = await apiFixture({ app: { limits: { maxTaskListStreams: 1 } } });
    const carol = await fx.tokenStore.create({ principal: "acme", actorId: "carol" });
    const reader = new FrameReader(await fx.call("GET", "/v1/tasks/stream", { token: carol.token }));
    await reader.until((frames) => frames.some((frame) => frame.retry !== undefined));
    expect((await fx.call("GET", "/v1/tasks/stream")).status).toBe(429);
    expect(await fx.tokenStore.revoke(carol.record.tokenId)).toBe(true);
    expect((await reader.toEnd()).at(-1)?.event).toBe("token_revoked");
    await expect
      .poll(async () => {
        const response = await fx.call("GET", "/v1/tasks/stream");
        await response.body?.cancel();
        return response.status;
      })
      .toBe(200);
  });

  it("refuses bad filters and no credentials", async () => {
    const fx = await apiFixture();
    for (const query of ["status=done", "roots=yes", "agent=a%20b", "extra=1"])
      expect((await fx.call("GET", `/v1/tasks/stream?${query}`)).status, query).toBe(400);
    expect((await fx.call("GET", "/v1/tasks/stream", { token: null })).status).toBe(401);
  });

  it("is a 503 over a store that does not tell of changes", async () => {
    const store = new MemoryStore();
    const fx = await apiFixture({ store: Object.assign(store, { onTaskChange: undefined }) });
    const response = await fx.call("GET", "/v1/tasks/stream");
    expect(response.status).toBe(503);
    expect((await json<{ error: { code: string } }>(response)).error.code).toBe("Unavailable");
  });
});

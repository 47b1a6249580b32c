/**
 * The console's stream client (console/stream.js), run in Node against the API in process: it
 * follows a task to its end, and after a connection dropped mid-stream it resumes with
 * Last-Event-ID, so every stored event arrives exactly once and in order.
 */
import { describe, expect, it } from "vitest";
import { APPROVAL_SCRIPT, apiFixture, createTask, runOnce } from "../test-support/api-fixture.ts";
import { CONSOLE_DIR } from "./console-routes.ts";

interface StoredLike {
  seq: number;
  type: string;
}

interface StreamModule {
  followTask(options: {
    taskId: string;
    token: string;
    afterSeq?: number;
    onStored(event: StoredLike): void;
    onLive(event: unknown): void;
    onState(state: string, detail?: string): void;
    signal: AbortSignal;
    fetchImpl(url: string, init: RequestInit): Response | Promise<Response>;
  }): Promise<void>;
}

// A URL, not a specifier: the asset is plain browser JavaScript outside the TypeScript project.
const streamModule = (): Promise<StreamModule> => import(new URL("stream.js", CONSOLE_DIR).href);

/**
 * Pass the first `frames` SSE frames of `response`, then fail the body as a dropped socket would
 * (mid-chunk if need be: the server coalesces frames into one chunk for a client that is behind).
 */
function dropAfter(response: Response, frames: number): Response {
  let seen = 0;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const cut = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const parts = decoder.decode(chunk).split("\n\n");
      parts.pop();
      const passed = parts.slice(0, Math.max(0, frames - seen));
      seen += passed.length;
      if (passed.length > 0) controller.enqueue(encoder.encode(passed.map((part) => `${part}\n\n`).join("")));
      if (passed.length < parts.length) controller.error(new Error("connection dropped"));
    },
  });
  return new Response(response.body?.pipeThrough(cut) ?? null, { status: response.status, headers: response.headers });
}

describe("the console's stream client", () => {
  it("resumes a dropped stream with Last-Event-ID: nothing lost, nothing repeated", async () => {
    const fixture = await apiFixture({ turns: APPROVAL_SCRIPT });
    const taskId = await createTask(fixture);
    await runOnce(fixture, taskId);
    const stored = await fixture.store.read(taskId);
    expect(stored.length).toBeGreaterThan(4);

    const requests: (string | null)[] = [];
    const fetchImpl = async (url: string, init: RequestInit) => {
      const headers = new Headers(init.headers);
      requests.push(headers.get("last-event-id"));
      const response = await fixture.app.request(url, { headers });
      // The first connection drops after the retry frame and three events.
      return requests.length === 1 ? dropAfter(response, 4) : response;
    };
    const { followTask } = await streamModule();
    const received: StoredLike[] = [];
    const states: string[] = [];
    const stop = new AbortController();
    const following = followTask({
      taskId,
      token: fixture.tokens.alice,
      onStored: (event) => {
        received.push(event);
        // The task is parked for approval: stop once everything stored has arrived.
        if (event.seq === stored.at(-1)?.seq) stop.abort();
      },
      onLive: () => {},
      onState: (state) => states.push(state),
      signal: stop.signal,
      fetchImpl,
    });
    await following;
    expect(received.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    expect(received.map((e) => e.type)).toEqual(stored.map((e) => e.type));
    expect(requests[0]).toBeNull();
    expect(requests[1]).toBe("3");
    expect(states).toContain("reconnecting");
  });

  it("stops when the server says nothing follows, and on a refused token", async () => {
    const fixture = await apiFixture();
    const taskId = await createTask(fixture);
    await runOnce(fixture, taskId);
    const { followTask } = await streamModule();
    const fetchImpl = (url: string, init: RequestInit) =>
      fixture.app.request(url, { headers: new Headers(init.headers) });
    const follow = async (token: string, afterSeq: number) => {
      const states: string[] = [];
      const seqs: number[] = [];
      await followTask({
        taskId,
        token,
        afterSeq,
        onStored: (event) => seqs.push(event.seq),
        onLive: () => {},
        onState: (state) => states.push(state),
        signal: new AbortController().signal,
        fetchImpl,
      });
      return { states, seqs };
    };
    const last = (await fixture.store.read(taskId)).at(-1)?.seq ?? 0;
    expect(await follow(fixture.tokens.alice, last)).toEqual({ states: ["connecting", "ended"], seqs: [] });
    expect((await follow("sema_bad", 0)).states).toEqual(["connecting", "unauthorized"]);
    expect((await follow(fixture.tokens.mallory, 0)).states).toEqual(["connecting", "gone"]);
  });
});

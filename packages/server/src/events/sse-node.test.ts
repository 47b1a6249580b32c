import { EventEmitter } from "node:events";
import { MemoryStore, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { settle } from "../test-support/counting-store.ts";
import { type NodeResponse, type NodeSink, sseToNode } from "./sse-node.ts";
import { StreamBudget } from "./stream-budget.ts";
import { TaskTails } from "./task-tail.ts";

/** A response whose socket takes `accepted` writes, then is full and never drains. */
class StalledResponse extends EventEmitter implements NodeResponse {
  readonly chunks: Uint8Array[] = [];
  status = 0;
  destroyed = false;
  ended = false;
  accepted: number;
  constructor(accepted: number) {
    super();
    this.accepted = accepted;
  }
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  flushHeaders(): void {}
  write(chunk: Uint8Array): boolean {
    this.chunks.push(chunk);
    return this.chunks.length < this.accepted;
  }
  end(): this {
    this.ended = true;
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
  get text(): string {
    return this.chunks.map((c) => new TextDecoder().decode(c)).join("");
  }
}

/** A socket that takes `accepted` writes, then is full until `drain`. */
class FakeSocket extends EventEmitter implements NodeSink {
  readonly writes: Uint8Array[] = [];
  destroyed = false;
  accepted = Number.POSITIVE_INFINITY;
  write(chunk: Uint8Array): boolean {
    this.writes.push(chunk);
    return this.writes.length < this.accepted;
  }
  get texts(): string[] {
    return this.writes.map((c) => new TextDecoder().decode(c));
  }
}

/** A response of its own connection, as `ServerResponse` is: `writeHead` settles the framing. */
class SocketResponse extends StalledResponse {
  readonly socket = new FakeSocket();
  readonly req: { method: string };
  useChunkedEncodingByDefault = true;
  shouldKeepAlive = true;
  chunkedEncoding = false;
  constructor(method = "GET") {
    super(Number.POSITIVE_INFINITY);
    this.req = { method };
  }
  override writeHead(status: number): this {
    this.chunkedEncoding = this.useChunkedEncodingByDefault;
    return super.writeHead(status);
  }
}

async function liveStream(response: NodeResponse) {
  const store = new MemoryStore();
  const taskId = await startTask(store, { objective: "o", principal: "p" });
  const tails = new TaskTails(store);
  const budget = new StreamBudget(Number.POSITIVE_INFINITY);
  const record = await store.getTask(taskId);
  sseToNode({ store, hub: undefined, tails, budget, record, afterSeq: 0, heartbeatMs: 60_000 }, response, {
    "content-type": "text/event-stream",
  });
  return { store, taskId, tails, budget, seq: record.lastSeq };
}

describe("sseToNode", () => {
  it("writes a live stream to the socket itself, close-delimited, one write per client per turn", async () => {
    const response = new SocketResponse();
    const { store, taskId, tails, budget, seq } = await liveStream(response);
    await settle(() => response.socket.writes.length);
    expect(response.shouldKeepAlive).toBe(false);
    expect(response.chunkedEncoding).toBe(false);
    expect(response.socket.texts.join("")).toContain(`id: ${seq}\n`);
    const before = response.socket.writes.length;
    // Three events appended in one turn: one write holding all three, in order.
    const stored = await store.append(taskId, [make.note("a"), make.note("b"), make.note("c")], { expectedSeq: seq });
    await settle(() => response.socket.writes.length);
    expect(response.socket.writes.length).toBe(before + 1);
    expect([...(response.socket.texts.at(-1) ?? "").matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual(
      stored.map((event) => event.seq),
    );
    // A full socket: what follows waits for its drain, then goes out coalesced.
    response.socket.accepted = response.socket.writes.length + 1;
    let last = stored.at(-1)?.seq ?? seq;
    last = (await store.append(taskId, [make.note("d")], { expectedSeq: last }))[0]?.seq ?? last;
    await settle(() => response.socket.writes.length);
    for (const text of ["e", "f"])
      last = (await store.append(taskId, [make.note(text)], { expectedSeq: last }))[0]?.seq ?? last;
    await settle(() => response.socket.writes.length);
    const full = response.socket.writes.length;
    expect(response.socket.texts.at(-1)).toContain('"text":"d"');
    response.socket.accepted = Number.POSITIVE_INFINITY;
    response.socket.emit("drain");
    await settle(() => response.socket.writes.length);
    expect(response.socket.writes.length).toBe(full + 1);
    expect(response.socket.texts.at(-1)).toMatch(/"text":"e"[\s\S]*"text":"f"/);
    // The end: the terminal event, then the response ends (the server closes the connection).
    await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], { expectedSeq: last });
    await settle(() => response.socket.writes.length + (response.ended ? 1 : 0));
    expect(response.socket.texts.at(-1)).toContain("event: task_completed\n");
    expect(response.ended).toBe(true);
    expect(response.chunks).toHaveLength(0);
    expect(tails.size).toBe(0);
    expect(budget.totalBytes).toBe(0);
  });

  it("writes through the response when the body is not its own to frame (HEAD, no socket yet)", async () => {
    const response = new SocketResponse("HEAD");
    const { store, taskId, seq } = await liveStream(response);
    await store.append(taskId, [make.note("a")], { expectedSeq: seq });
    await settle(() => response.chunks.length);
    expect(response.socket.writes).toHaveLength(0);
    expect(response.useChunkedEncodingByDefault).toBe(true);
    expect(response.text).toContain('"text":"a"');
    response.emit("close");
  });

  it("writes only when the socket took the last chunk; a stalled one is cut at its budget, and a close cleans up", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    const tails = new TaskTails(store);
    const budget = new StreamBudget(Number.POSITIVE_INFINITY);
    const response = new StalledResponse(2);
    const record = await store.getTask(taskId);
    sseToNode(
      { store, hub: undefined, tails, budget, record, afterSeq: 0, heartbeatMs: 60_000, maxBufferedBytes: 5000 },
      response,
      { "content-type": "text/event-stream" },
    );
    await settle(() => response.chunks.length);
    // The retry frame, then the stored log; the socket is full after the second write.
    expect(response.status).toBe(200);
    expect(response.chunks).toHaveLength(2);
    expect(response.text).toContain(`id: ${record.lastSeq}\n`);
    let seq = record.lastSeq;
    for (let i = 0; i < 40; i++) {
      seq = (await store.append(taskId, [make.note("z".repeat(500))], { expectedSeq: seq }))[0]?.seq ?? seq;
      expect(budget.totalBytes).toBeLessThanOrEqual(5000 + 700);
    }
    expect(response.chunks).toHaveLength(2);
    expect(budget.totalBytes).toBe(0);
    expect(tails.size).toBe(0);
    // Drained at last: it gets why it was cut, then the end.
    response.accepted = Number.POSITIVE_INFINITY;
    response.emit("drain");
    await settle(() => response.chunks.length + (response.ended ? 1 : 0));
    expect(
      response.text.endsWith(`data: {"reason":"stream_budget","limitBytes":5000,"lastSeq":${record.lastSeq}}\n\n`),
    ).toBe(true);
    expect(response.ended).toBe(true);
  });

  it("stops when the client goes away", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    const tails = new TaskTails(store);
    const budget = new StreamBudget(Number.POSITIVE_INFINITY);
    const response = new StalledResponse(Number.POSITIVE_INFINITY);
    const record = await store.getTask(taskId);
    sseToNode({ store, hub: undefined, tails, budget, record, afterSeq: 0, heartbeatMs: 60_000 }, response, {});
    await settle(() => response.chunks.length);
    expect(tails.size).toBe(1);
    response.destroyed = true;
    response.emit("close");
    await settle(() => tails.size);
    expect(tails.size).toBe(0);
    expect(budget.streams).toBe(0);
  });

  it("lets the event loop serve others between pages while a socket takes everything at once", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "o", principal: "p" });
    let seq = (await store.getTask(taskId)).lastSeq;
    // About 2 MB of log: eight or more catch-up pages.
    for (let i = 0; i < 200; i++)
      seq = (await store.append(taskId, [make.note("z".repeat(10_000))], { expectedSeq: seq }))[0]?.seq ?? seq;
    const response = new StalledResponse(Number.POSITIVE_INFINITY);
    const budget = new StreamBudget(Number.POSITIVE_INFINITY);
    const record = await store.getTask(taskId);
    sseToNode(
      { store, hub: undefined, tails: new TaskTails(store), budget, record, afterSeq: 0, heartbeatMs: 60_000 },
      response,
      { "content-type": "text/event-stream" },
    );
    // A macrotask queued now runs while the stream is still catching up, not after all of it.
    const bytesAtTurn = await new Promise<number>((resolve) =>
      setImmediate(() => resolve(response.chunks.reduce((n, c) => n + c.byteLength, 0))),
    );
    expect(bytesAtTurn).toBeLessThan(1024 * 1024);
    await settle(() => response.chunks.length);
    expect(response.text).toContain(`id: ${seq}\n`);
    response.emit("close");
  });
});

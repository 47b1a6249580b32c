import { EventEmitter } from "node:events";
import { MemoryStore, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { describe, expect, it } from "vitest";
import { settle } from "../test-support/counting-store.ts";
import { type NodeResponse, sseToNode } from "./sse-node.ts";
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

describe("sseToNode", () => {
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

// The store wrapper's timing and hand-off: the caller gets the store's own promise, the latency is
// recorded and the stored events handed to `emit` before the caller resumes, a failed append is
// timed with its error's class and still fails for the caller (nothing left unhandled), and a
// method that throws instead of rejecting still throws where it is called.

import type { Meter } from "@opentelemetry/api";
import { MemoryStore, type Store, type StoredEvent, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { instrumentStore } from "./instrument-store.ts";
import { METRIC } from "./metric-names.ts";
import { pointsOf, type TestProcess, testProcess } from "./test-support.ts";

/** A meter whose histograms note each call: `[name, value, attributes]`. */
function notingMeter(calls: unknown[]): Meter {
  const instrument = (name: string) => ({
    add: (value: number, attributes: object) => calls.push([name, value, attributes]),
    record: (value: number, attributes: object) => calls.push([name, value, attributes]),
  });
  return { createCounter: instrument, createHistogram: instrument } as unknown as Meter;
}

/** A clock that steps `step` ms per read. */
const stepping = (step: number) => {
  let now = 0;
  return () => (now += step);
};

const open: TestProcess[] = [];
afterEach(async () => {
  for (const process of open.splice(0)) await process.close();
});

describe("instrumentStore", () => {
  it("records and emits before the caller resumes, handing back the store's own promise", async () => {
    const raw = new MemoryStore();
    const order: string[] = [];
    const calls: unknown[] = [];
    const store = instrumentStore(raw, {
      meter: notingMeter(calls),
      now: stepping(3),
      emit: (event) => order.push(`emit ${"seq" in event ? event.seq : "?"}`),
    });
    const taskId = await startTask(store, { objective: "o" });
    order.push("resumed");
    const created = (await raw.read(taskId)).map((event) => `emit ${event.seq}`);
    const lastSeq = created.length;
    const events = await store.append(taskId, [make.legStarted()], { expectedSeq: lastSeq });
    order.push("resumed");
    expect(events.map((event) => event.seq)).toEqual([lastSeq + 1]);
    expect(order).toEqual([...created, "resumed", `emit ${lastSeq + 1}`, "resumed"]);
    expect(calls).toEqual([
      [METRIC.storeAppend, 0.003, { "sema.store.operation": "create_task" }],
      [METRIC.storeAppend, 0.003, { "sema.store.operation": "append" }],
    ]);
  });

  it("times a failed append with its error's class; the caller gets the same error, nothing unhandled", async () => {
    const raw = new MemoryStore();
    const process = testProcess(raw, stepping(2));
    open.push(process);
    const store = process.wrap(raw);
    const taskId = await startTask(store, { objective: "o" });
    const stale = store.append(taskId, [make.legStarted()], { expectedSeq: 7 });
    const failure = await stale.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: "SeqConflict" });
    const points = await process.collect();
    expect(
      pointsOf(points, METRIC.storeAppend, { "error.type": "SeqConflict" }).map((point) =>
        typeof point.value === "number" ? point.value : [point.value.count, point.value.sum],
      ),
    ).toEqual([[1, 0.002]]);
    expect(pointsOf(points, METRIC.storeAppend, { "sema.store.operation": "create_task" })).toHaveLength(1);
    // The failed append emitted nothing: the sink folded the created task only.
    expect(process.sink.tasks).toBe(1);
  });

  it("a store method that throws instead of rejecting throws at the call, unrecorded", () => {
    const calls: unknown[] = [];
    const throwing = {
      append: (): Promise<StoredEvent[]> => {
        throw new TypeError("not a promise");
      },
    } as unknown as Store;
    const store = instrumentStore(throwing, { meter: notingMeter(calls) });
    expect(() => store.append("t1", [], { expectedSeq: 1 })).toThrow("not a promise");
    expect(calls).toEqual([]);
  });
});

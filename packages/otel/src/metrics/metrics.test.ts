// The metrics of a scripted task (two tool calls, an approval, a steer, a resume), read through
// the SDK's in-memory exporter: the counts, the histograms from stored times, the attributes; and
// each event counted once however many processes wrote the task or saw its events.

import type { Meter } from "@opentelemetry/api";
import type { StoredEvent } from "@sema-agent/core";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { foldMeasurements, type Measurement } from "./metric-fold.ts";
import { METRIC } from "./metric-names.ts";
import { metricsEmit } from "./metrics-emit.ts";
import {
  clockedStore,
  countOf,
  pointsOf,
  runScriptedTask,
  sumOf,
  type TestProcess,
  testProcess,
  type Writer,
} from "./test-support.ts";

const open: TestProcess[] = [];
afterEach(async () => {
  for (const process of open.splice(0)) await process.close();
});
const processOn = (...args: Parameters<typeof testProcess>) => {
  const made = testProcess(...args);
  open.push(made);
  return made;
};

const CHAT = {
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": "openai",
  "gen_ai.request.model": "gpt-test",
};

describe("the metrics of a task", () => {
  it("one process that wrote it all records every measurement, from the stored times", async () => {
    let process: TestProcess | undefined;
    await runScriptedTask((raw) => {
      process ??= processOn(raw);
      return process.wrap(raw);
    });
    if (process === undefined) throw new Error("no process");
    const points = await process.collect();

    // Three model turns of 2 s each (the leg's previous event to the stored turn), 10 + 5 tokens each.
    expect(pointsOf(points, METRIC.operationDuration).map((point) => point.attributes)).toEqual([CHAT]);
    expect(countOf(points, METRIC.operationDuration, CHAT)).toBe(3);
    expect(sumOf(points, METRIC.operationDuration, CHAT)).toBe(6);
    expect(countOf(points, METRIC.tokenUsage, { ...CHAT, "gen_ai.token.type": "input" })).toBe(3);
    expect(sumOf(points, METRIC.tokenUsage, { ...CHAT, "gen_ai.token.type": "input" })).toBe(30);
    expect(sumOf(points, METRIC.tokenUsage, { ...CHAT, "gen_ai.token.type": "output" })).toBe(15);
    // The conventions' bucket advice is applied.
    const [chat] = pointsOf(points, METRIC.operationDuration);
    expect(chat !== undefined && typeof chat.value !== "number" && chat.value.buckets.boundaries).toEqual([
      0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
    ]);

    expect(countOf(points, METRIC.taskStarted, { "gen_ai.agent.name": "planner" })).toBe(1);
    const ended = { "gen_ai.agent.name": "planner", "sema.task.status": "completed" };
    expect(pointsOf(points, METRIC.taskEnded).map((point) => [point.attributes, point.value])).toEqual([[ended, 1]]);
    expect(sumOf(points, METRIC.taskDuration, ended)).toBe(24);

    expect(pointsOf(points, METRIC.legEnded).map((point) => [point.attributes, point.value])).toEqual([
      [{ "gen_ai.agent.name": "planner", "sema.leg.end_reason": "parked:approval", "sema.leg.trigger": "start" }, 1],
      [{ "gen_ai.agent.name": "planner", "sema.leg.end_reason": "completed", "sema.leg.trigger": "resume" }, 1],
    ]);
    expect(sumOf(points, METRIC.legDuration)).toBe(16);

    for (const tool of ["lookup", "write_file"]) {
      const attributes = { "gen_ai.tool.name": tool, "sema.tool.status": "ok" };
      expect([
        countOf(points, METRIC.toolDuration, attributes),
        sumOf(points, METRIC.toolDuration, attributes),
      ]).toEqual([1, 2]);
    }
    // Parked for approval, decided 4 s later.
    expect(pointsOf(points, METRIC.approvalWait).map((point) => point.attributes)).toEqual([
      { "sema.approval.decision": "approve", "gen_ai.tool.name": "write_file" },
    ]);
    expect(sumOf(points, METRIC.approvalWait)).toBe(4);
    // The objective waited 3 s for the first model request; the steer 10 s (sent while parked).
    const input = (carrier: string) => ({
      "sema.input.carrier": carrier,
      "sema.input.lane": "user",
      "sema.input.outcome": "applied",
    });
    expect([
      countOf(points, METRIC.inputDelivery, input("objective")),
      sumOf(points, METRIC.inputDelivery, input("objective")),
    ]).toEqual([1, 3]);
    expect([
      countOf(points, METRIC.inputDelivery, input("steer")),
      sumOf(points, METRIC.inputDelivery, input("steer")),
    ]).toEqual([1, 10]);

    // Every append was timed, the creation apart.
    expect(countOf(points, METRIC.storeAppend, { "sema.store.operation": "create_task" })).toBe(1);
    expect(countOf(points, METRIC.storeAppend, { "sema.store.operation": "append" })).toBeGreaterThan(5);
    // No id of a task, input or call, nor a principal, is ever an attribute.
    const values = [...points.values()].flat().flatMap((point) => Object.values(point.attributes));
    expect(
      values.filter((value) => typeof value === "string" && /[0-9a-f]{8}-|call-|acme|ana|bob/.test(value)),
    ).toEqual([]);
  });

  it("three processes (first leg, API, second leg) together record each measurement once", async () => {
    const processes = new Map<Writer, TestProcess>();
    await runScriptedTask((raw, writer) => {
      let process = processes.get(writer);
      if (process === undefined) {
        process = processOn(raw);
        processes.set(writer, process);
      }
      return process.wrap(raw);
    });
    const read = async (writer: Writer) => {
      const process = processes.get(writer);
      if (process === undefined) throw new Error(`no ${writer}`);
      return process.collect();
    };
    const [leg1, api, leg2] = [await read("leg1"), await read("api"), await read("leg2")];
    // Each measurement is recorded by the process that appended the event that completes it.
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.operationDuration))).toEqual([2, 0, 1]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.taskStarted))).toEqual([0, 1, 0]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.approvalWait))).toEqual([0, 1, 0]);
    expect([leg1, api, leg2].map((points) => sumOf(points, METRIC.approvalWait))).toEqual([0, 4, 0]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.inputDelivery))).toEqual([1, 0, 1]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.legEnded))).toEqual([1, 0, 1]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.taskEnded))).toEqual([0, 0, 1]);
    expect([leg1, api, leg2].map((points) => countOf(points, METRIC.toolDuration))).toEqual([1, 0, 1]);
    // The second leg read the first 13 events to know when the steer arrived: it measured 10 s.
    expect(sumOf(leg2, METRIC.inputDelivery, { "sema.input.carrier": "steer" })).toBe(10);
  });

  it("an event given twice (the harness's emit and the store wrapper), or a log replayed, counts once", async () => {
    let process: TestProcess | undefined;
    const { raw, taskId } = await runScriptedTask((store) => {
      process ??= processOn(store);
      return process.wrap(store);
    });
    if (process === undefined) throw new Error("no process");
    const before = await process.collect();
    for (const event of await raw.read(taskId)) process.sink.emit(event);
    const after = await process.collect();
    for (const name of Object.values(METRIC))
      expect([name, countOf(after, name)]).toEqual([name, countOf(before, name)]);
  });
});

/** A meter that keeps what is recorded, for the fold's property. */
function recordingMeter(into: Measurement[]): Meter {
  const instrument = (name: string) => ({
    add: (value: number, attributes: Record<string, string>) =>
      into.push({ metric: name as Measurement["metric"], value, attributes }),
    record: (value: number, attributes: Record<string, string>) =>
      into.push({ metric: name as Measurement["metric"], value, attributes }),
  });
  return { createCounter: instrument, createHistogram: instrument } as unknown as Meter;
}

const key = (m: Measurement) => JSON.stringify([m.metric, m.value, Object.entries(m.attributes).sort()]);

describe("metricsEmit across processes", () => {
  it("keeps at most maxTasks folds; a forgotten task is read again and still measured once", async () => {
    const raw = clockedStore();
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await runScriptedTask((store) => store, raw));
    const logs = await Promise.all(runs.map((run) => raw.read(run.taskId)));
    const recorded: Measurement[] = [];
    const sink = metricsEmit({ meter: recordingMeter(recorded), store: raw, maxTasks: 2 });
    // Interleaved, so each task is forgotten and read again between two of its events.
    const longest = Math.max(...logs.map((log) => log.length));
    for (let index = 0; index < longest; index++)
      for (const log of logs) {
        const event = log[index];
        if (event !== undefined) sink.emit(event);
        await sink.flush();
        expect(sink.tasks).toBeLessThanOrEqual(2);
      }
    expect(recorded.map(key).sort()).toEqual(
      logs
        .flatMap((log) => foldMeasurements(log))
        .map(key)
        .sort(),
    );
  });

  it("whichever process appended each event, together they record what one process would", async () => {
    const { raw, taskId } = await runScriptedTask((store) => store);
    const log: StoredEvent[] = await raw.read(taskId);
    const whole = foldMeasurements(log).map(key).sort();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: log.length, maxLength: log.length }),
        async (owners) => {
          const recorded: Measurement[] = [];
          const sinks = [0, 1, 2].map(() => metricsEmit({ meter: recordingMeter(recorded), store: raw }));
          for (const [index, event] of log.entries()) sinks[owners[index] ?? 0]?.emit(event);
          for (const sink of sinks) await sink.flush();
          expect(recorded.map(key).sort()).toEqual(whole);
        },
      ),
      { numRuns: 40 },
    );
  });
});

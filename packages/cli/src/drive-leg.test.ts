// What `sema run` / `sema resume` say when the model is down: the park, when it is asked again.
import { MemoryStore, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { driveLeg } from "./drive-leg.ts";
import { captureIo } from "./test-support/capture-io.ts";

afterEach(() => vi.useRealTimers());

describe("driveLeg", () => {
  it("a model that is down parks the task (parked:model) and says when it is asked again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse("2026-12-01T12:00:00.000Z"));
    const store = new MemoryStore();
    const model = new ScriptedModel([
      { error: { message: "connect ECONNREFUSED 127.0.0.1:59999", code: "connection", isRetryable: true } },
      { text: "Hi, back." },
    ]);
    const agent = { model, modelBackoff: { baseMs: 30_000 } };
    const taskId = await startTask(store, { objective: "Say hi" });
    const c = captureIo("/");
    const options = { store, taskId, agent, dbFlag: " --db x.db", stdinSteers: false };
    expect(await driveLeg(c.io, options)).toBe(4); // parked: the model unreachable
    expect(c.out()).toContain("! The model is unavailable: connect ECONNREFUSED 127.0.0.1:59999 (connection)");
    expect(c.out()).toContain("‖ parked (model)");
    expect(c.out()).toContain(
      `Task ${taskId} is parked (model): the model is unavailable. A worker (sema worker) asks it again from 2026-12-01T12:00:30.000Z; or resume it now with: sema resume ${taskId} --db x.db`,
    );

    const r = captureIo("/");
    expect(await driveLeg(r.io, options)).toBe(0);
    expect(r.out()).toContain("assistant: Hi, back.");
  });
});

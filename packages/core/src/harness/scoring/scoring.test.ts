import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../adapters/memory-store.ts";
import type { Scorer } from "../../ports/scorer.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { checkedScore, defineScorer, isScoreValue } from "./define-scorer.ts";
import { scoreInputOf } from "./score-input.ts";
import { scoreTask } from "./score-task.ts";

/** A finished task: one lookup, then a JSON answer. */
async function finished(store: MemoryStore, principal = "acme"): Promise<string> {
  const lookup = defineTool({
    name: "lookup",
    description: "Look a city up",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    execute: () => "Lisbon is the capital",
  });
  const model = new ScriptedModel([
    { toolCalls: [{ name: "lookup", input: { city: "Lisbon" } }] },
    { text: '{"capital":"Lisbon"}' },
  ]);
  const taskId = await startTask(store, { objective: "Capital of Portugal?", principal, metadata: { suite: "geo" } });
  await runLeg({ store, agent: { model, tools: [lookup] } }, taskId);
  return taskId;
}

describe("defineScorer", () => {
  it("refuses a name of the wrong form and a score that is not a function, naming each", () => {
    expect(() => defineScorer({ name: "__proto__", score: () => 1 })).toThrow(/defineScorer: name/);
    expect(() => defineScorer({ name: "ok", score: 1 as never })).toThrow(/score must be a function/);
  });

  it("takes a number or a verdict, and refuses anything outside [0, 1]", async () => {
    const signal = new AbortController().signal;
    const input = scoreInputOf(
      await (async () => {
        const store = new MemoryStore();
        return store.read(await finished(store));
      })(),
    );
    expect(await defineScorer({ name: "n", score: () => 0.25 }).score(input, { signal })).toEqual({ value: 0.25 });
    expect(
      await defineScorer({ name: "v", score: async () => ({ value: 1, reason: "yes" }) }).score(input, { signal }),
    ).toEqual({ value: 1, reason: "yes" });
    await expect(defineScorer({ name: "big", score: () => 1.5 }).score(input, { signal })).rejects.toThrow(
      "scorer big returned 1.5: a score is a number from 0 to 1",
    );
  });

  it("accepts exactly the finite numbers from 0 to 1 (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constant(Number.NaN), fc.string(), fc.boolean()), (value) => {
        const ok = typeof value === "number" && value >= 0 && value <= 1;
        expect(isScoreValue(value)).toBe(ok);
        if (ok) expect(checkedScore("s", value)).toEqual({ value });
        else expect(() => checkedScore("s", value)).toThrow(/scorer s returned/);
      }),
    );
  });
});

describe("scoreInputOf", () => {
  it("reads what a scorer needs from the log alone", async () => {
    const store = new MemoryStore();
    const taskId = await finished(store);
    const input = scoreInputOf(await store.read(taskId), { capital: "Lisbon" });
    expect(input).toMatchObject({
      objective: "Capital of Portugal?",
      expected: { capital: "Lisbon" },
      output: '{"capital":"Lisbon"}',
      outputJson: { capital: "Lisbon" },
      status: "completed",
      toolCalls: [{ name: "lookup", input: { city: "Lisbon" }, status: "ok" }],
      turns: 2,
      metadata: { suite: "geo" },
    });
    expect(input.usage.inputTokens).toBeGreaterThan(0);
    expect(input.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("gives no output for a task that has not completed", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Wait", principal: "acme" });
    const input = scoreInputOf(await store.read(taskId));
    expect(input.status).toBe("created");
    expect(input.output).toBeUndefined();
  });
});

describe("scoreTask", () => {
  const mentions: Scorer = defineScorer({
    name: "mentions-lisbon",
    score: ({ output }) => ({ value: output?.includes("Lisbon") === true ? 1 : 0, reason: "looked for Lisbon" }),
  });
  const broken: Scorer = defineScorer({
    name: "broken",
    score: () => {
      throw new Error("judge unavailable");
    },
  });

  it("records each verdict as task_scored, in one append, and the summary keeps the latest", async () => {
    const store = new MemoryStore();
    const taskId = await finished(store);
    const before = (await store.getTask(taskId)).lastSeq;
    const results = await scoreTask(store, taskId, [mentions, broken]);
    expect(results).toEqual([
      { scorer: "mentions-lisbon", value: 1, reason: "looked for Lisbon" },
      { scorer: "broken", error: "judge unavailable" },
    ]);
    const appended = (await store.read(taskId)).slice(before);
    expect(appended).toMatchObject([{ type: "task_scored", scorer: "mentions-lisbon", value: 1 }]);
    const { summary } = await store.getTask(taskId);
    expect(summary.status).toBe("completed");
    expect(summary.scores).toEqual({ "mentions-lisbon": { value: 1, reason: "looked for Lisbon" } });
  });

  it("runs a scorer once per experiment: a verdict recorded for it is returned, not asked again", async () => {
    const store = new MemoryStore();
    const taskId = await finished(store);
    let calls = 0;
    const counted = defineScorer({
      name: "counted",
      score: () => {
        calls++;
        return 0.5;
      },
    });
    await scoreTask(store, taskId, [counted], { experiment: "exp-1" });
    const again = await scoreTask(store, taskId, [counted], { experiment: "exp-1" });
    expect(again).toEqual([{ scorer: "counted", value: 0.5, recorded: true }]);
    expect(calls).toBe(1);
    // Another experiment (or an online score) asks again.
    await scoreTask(store, taskId, [counted], { experiment: "exp-2" });
    expect(calls).toBe(2);
  });

  it("refuses two scorers of one name, and another principal's task as an unknown one", async () => {
    const store = new MemoryStore();
    const taskId = await finished(store);
    await expect(scoreTask(store, taskId, [mentions, mentions])).rejects.toMatchObject({ code: "ConfigError" });
    await expect(scoreTask(store, taskId, [mentions], { principal: "mallory" })).rejects.toMatchObject({
      code: "TaskNotFound",
    });
    expect((await store.getTask(taskId)).summary.scores).toBeUndefined();
  });
});

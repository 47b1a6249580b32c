// Structured output end to end through runLeg: the model is asked for the schema, a wrong answer
// goes back as a recorded correction, a second wrong one fails the task with OutputInvalid naming
// the path, and a crash anywhere (between the correction and the answer above all) resumes with
// neither a lost nor a repeated correction.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { Store } from "../../ports/store.ts";
import { isSemaError, OutputInvalidError } from "../../protocol/errors.ts";
import { OUTPUT_CORRECTION, type StoredEvent } from "../../protocol/task-event.ts";
import { dyingStore, SimulatedDeath } from "../../testing/dying-store.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import type { Agent } from "../agent.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { jumpingClock } from "../test-support/jumping-clock.ts";
import { checkOutput } from "./structured-output.ts";

const Person = z.strictObject({ name: z.string(), age: z.number() });
const WRONG: ScriptedTurn = { text: '{"name":"Ada","age":"thirty-six"}' };
const RIGHT: ScriptedTurn = { text: '{"name":"Ada","age":36}' };

function corrections(events: readonly StoredEvent[]) {
  return events.filter((e) => e.type === "hook_feedback" && e.hook === OUTPUT_CORRECTION);
}

async function run(agent: Agent, start: Parameters<typeof startTask>[1] = { objective: "Who?" }) {
  const store = new MemoryStore();
  const taskId = await startTask(store, start);
  const outcome = await runLeg({ store, agent }, taskId);
  return { store, taskId, outcome, events: await store.read(taskId) };
}

describe("structured output", () => {
  it("asks for the schema, sends a wrong answer back as a recorded correction, completes with the JSON", async () => {
    const model = new ScriptedModel([WRONG, RIGHT]);
    const { outcome, events } = await run({ model, output: Person });
    expect(outcome).toMatchObject({ status: "completed", result: '{"name":"Ada","age":36}' });
    expect(model.requests[0]?.responseFormat).toEqual({
      type: "json",
      schema: {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "number" } },
        required: ["name", "age"],
        additionalProperties: false,
      },
    });
    const [correction] = corrections(events);
    expect(correction).toMatchObject({ type: "hook_feedback", hook: "output" });
    expect(correction?.type === "hook_feedback" && correction.content).toContain("at $.age:");
    // The model saw its wrong answer and the correction, framed as the system's word.
    expect(model.requests[1]?.transcript.at(-1)).toMatchObject({ role: "user", entryId: `hook:${correction?.seq}` });
    expect(model.requests[1]?.transcript.at(-1)).toHaveProperty(
      "content",
      expect.stringMatching(/^<system-reminder>\nYour final answer does not match the required output schema:/),
    );
    expect(fold(events).outputCorrections).toBeUndefined();
    model.assertConsumed();
  });

  it("fails the task with OutputInvalid naming the path after the second wrong answer", async () => {
    const model = new ScriptedModel([WRONG, WRONG]);
    const { outcome, events } = await run({ model, output: Person });
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("OutputInvalid");
    expect(outcome.error?.message).toContain("after 2 attempts");
    expect(outcome.error?.message).toContain("at $.age:");
    expect(corrections(events)).toHaveLength(1);
    expect(events.find((e) => e.type === "engine_note" && e.kind === "output_invalid")).toMatchObject({
      data: { paths: ["$.age"] },
    });
    model.assertConsumed();
  });

  it("gives as many answers as outputAttempts says", async () => {
    const once = await run({ model: new ScriptedModel([WRONG]), output: Person, outputAttempts: 1 });
    expect(once.outcome.error?.code).toBe("OutputInvalid");
    expect(corrections(once.events)).toHaveLength(0);
    const thrice = await run({ model: new ScriptedModel([WRONG, WRONG, RIGHT]), output: Person, outputAttempts: 3 });
    expect(thrice.outcome.status).toBe("completed");
    expect(corrections(thrice.events)).toHaveLength(2);
  });

  it("takes a plain JSON Schema as the agent's output, and a fenced JSON answer", async () => {
    const output = {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    };
    const model = new ScriptedModel([{ text: '{"town":"Oslo"}' }, { text: 'Here:\n```json\n{"city":"Oslo"}\n```' }]);
    const { outcome, events } = await run({ model, output });
    expect(outcome).toMatchObject({ status: "completed", result: '{"city":"Oslo"}' });
    expect(model.requests[0]?.responseFormat?.schema).toEqual(output);
    expect(corrections(events)).toHaveLength(1);
  });

  it("a task's own output schema is recorded, asked for and checked in place of the agent's", async () => {
    const model = new ScriptedModel([{ text: '["a", 1]' }, { text: '["a","b"]' }]);
    const { outcome, events } = await run(
      { model, output: Person },
      { objective: "List", output: z.array(z.string()) },
    );
    const created = events[0];
    expect(created).toMatchObject({
      type: "task_created",
      v: 2,
      settings: { output: { type: "array", items: { type: "string" } } },
    });
    expect(model.requests[0]?.responseFormat?.schema).toEqual({ type: "array", items: { type: "string" } });
    expect(outcome).toMatchObject({ status: "completed", result: '["a","b"]' });
    const [correction] = corrections(events);
    expect(correction?.type === "hook_feedback" && correction.content).toContain("at $[1]:");
  });

  it("reports an answer that is not JSON at the root path", async () => {
    expect(await checkOutput(Person, "Ada, 36")).toMatchObject({ ok: false, paths: ["$"] });
    expect(await checkOutput(Person, "")).toMatchObject({ ok: false, paths: ["$"] });
  });

  it("a JSON Schema that cannot check answers fails the task with InvalidInput, or is refused by startTask", async () => {
    const output = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } };
    const { outcome } = await run({ model: new ScriptedModel([{ text: "{}" }]), output });
    expect(outcome.status).toBe("failed");
    expect(outcome.error?.code).toBe("InvalidInput");
    expect(outcome.error?.message).toMatch(/^the output schema cannot check answers: /);
    await expect(startTask(new MemoryStore(), { objective: "x", output })).rejects.toSatisfy((error) =>
      isSemaError(error, "InvalidInput"),
    );
  });

  it("lists at most ten problems, and counts the rest", async () => {
    const Many = z.strictObject(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, z.number()])));
    const { outcome, events } = await run({ model: new ScriptedModel([{ text: "{}" }, { text: "{}" }]), output: Many });
    expect(outcome.error?.message).toContain("at $.k9:");
    expect(outcome.error?.message).not.toContain("at $.k10:");
    expect(outcome.error?.message).toMatch(/and 2 more$/);
    const [correction] = corrections(events);
    expect(correction?.type === "hook_feedback" && correction.content).toContain("- and 2 more\n");
  });

  it("names a failure with a typed error of its own code", () => {
    const error = new OutputInvalidError("the final answer does not match", ["$.age"]);
    expect(isSemaError(error, "OutputInvalid")).toBe(true);
    expect(error).toMatchObject({ paths: ["$.age"], isRetryable: false, details: { paths: ["$.age"] } });
  });
});

describe("structured output across a crash", () => {
  const LEASE_TTL_MS = 100;

  /** A leg on a host that dies at the given append, then fresh hosts until the task ends. */
  async function runThroughDeath(dieAt: number, when: "before" | "after") {
    // One clock for the store and the legs, moved only by the test: a lease lapses when the test
    // says so, never because a busy machine was slow between two appends.
    const clock = jumpingClock({ withWallClock: false });
    const store: Store = new MemoryStore({ now: clock.now });
    const taskId = await startTask(store, { objective: "Who?" });
    const agent = (): Agent => ({
      // By transcript: a resumed leg plays the turn the log is at, as a stateless model would.
      model: new ScriptedModel([WRONG, RIGHT, RIGHT], { mode: "by-transcript" }),
      output: Person,
    });
    let sawCorrectionWithoutAnswer = false;
    for (let attempt = 0; attempt < 10; attempt++) {
      const host = attempt === 0 ? dyingStore(store, { appendsBeforeDeath: dieAt, when }) : store;
      try {
        const outcome = await runLeg(
          {
            store: host,
            agent: agent(),
            holder: { id: `host-${attempt}` },
            leaseTtlMs: LEASE_TTL_MS,
            clock: clock.now,
          },
          taskId,
        );
        if (outcome.status === "completed" || outcome.status === "failed")
          return { outcome, events: await store.read(taskId), sawCorrectionWithoutAnswer };
      } catch (error) {
        if (!(error instanceof SimulatedDeath) && !isSemaError(error, "LeaseHeld")) throw error;
        const events = await store.read(taskId);
        const last = fold(events).transcript.at(-1);
        if (last?.role === "user" && last.entryId.startsWith("hook:")) sawCorrectionWithoutAnswer = true;
        clock.jump(LEASE_TTL_MS + 1); // the dead host's lease expires
      }
    }
    throw new Error("the task never ended");
  }

  it("at every append: one correction, never two, and the same answer", async () => {
    let betweenCorrectionAndAnswer = 0;
    for (let n = 0; n < 12; n++) {
      for (const when of ["before", "after"] as const) {
        const { outcome, events, sawCorrectionWithoutAnswer } = await runThroughDeath(n, when);
        const where = `death at append ${n} (${when})`;
        expect(outcome, where).toMatchObject({ status: "completed", result: '{"name":"Ada","age":36}' });
        expect(corrections(events), where).toHaveLength(1);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        if (sawCorrectionWithoutAnswer) betweenCorrectionAndAnswer++;
      }
    }
    // Some death fell exactly between the recorded correction and the model's next answer.
    expect(betweenCorrectionAndAnswer).toBeGreaterThan(0);
  });
});

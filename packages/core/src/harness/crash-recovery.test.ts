// Fault injection (design §4 crash semantics): kill the host at every append of a scripted task
// with several turns, tool calls, a steer and a nextTurn, resume in a fresh harness, and check that
// nothing is lost, nothing with side effects runs twice, every call has one result, and the
// answer is the undisturbed run's. Then resume from every batch boundary of the undisturbed log and
// check that the model receives byte-identical requests.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../adapters/memory-store.ts";
import { fold } from "../core/fold.ts";
import type { ModelRequest } from "../ports/model.ts";
import type { Store } from "../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { dyingStore, SimulatedDeath } from "../testing/dying-store.ts";
import { ScriptedModel, type ScriptStep } from "../testing/scripted-model.ts";
import type { Agent } from "./agent.ts";
import { runLeg } from "./leg/run-leg.ts";
import { buildModelRequest } from "./model/model-request.ts";
import { sendInput } from "./tasks/send-input.ts";
import { startTask } from "./tasks/start-task.ts";
import { defineTool } from "./tools/define-tool.ts";
import { CRASHED_CALL_CONTENT } from "./tools/tool-phase.ts";

const pinned = (n: number) => new Uint8Array(n).fill(0x11);

/** The outside world the tools act on: it survives every simulated death. */
function makeWorld() {
  const runs: Record<string, number> = {};
  const count = (key: string) => {
    runs[key] = (runs[key] ?? 0) + 1;
  };
  const tools = [
    defineTool({
      name: "set_value",
      description: "set a value",
      inputSchema: z.object({ k: z.string(), v: z.number() }),
      idempotent: true,
      execute: ({ k, v }) => {
        count(`set:${k}`);
        return `set ${k}=${v}`;
      },
    }),
    defineTool({
      name: "append_note",
      description: "append a note (not idempotent)",
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => {
        count(`note:${text}`);
        return `noted ${text}`;
      },
    }),
    defineTool({
      name: "lookup",
      description: "look a key up",
      inputSchema: z.object({ k: z.string() }),
      readOnly: true,
      idempotent: true,
      execute: ({ k }) => `value of ${k} is ${k.length}`,
    }),
  ];
  return { runs, tools };
}

/** The script, stateless (by transcript): the steer and the nextTurn are sent once, by "another process". */
function script(base: Store, taskId: () => string): ScriptStep[] {
  const logHas = async (text: string) =>
    (await base.read(taskId())).some((e) => e.type === "human_input" && e.text === text);
  return [
    {
      text: "Starting.",
      toolCalls: [
        { name: "set_value", input: { k: "a", v: 1 } },
        { name: "append_note", input: { text: "n1" } },
      ],
    },
    async () => {
      if (!(await logHas("steer-1"))) await sendInput(base, taskId(), { text: "steer-1", inputId: "in-steer-1" });
      return {
        toolCalls: [
          { name: "lookup", input: { k: "a" } },
          { name: "lookup", input: { k: "bb" } },
        ],
      };
    },
    async () => {
      if (!(await logHas("next-1")))
        await sendInput(base, taskId(), { text: "next-1", carrier: "nextTurn", inputId: "in-next-1" });
      return { text: "Almost.", toolCalls: [{ name: "append_note", input: { text: "n2" } }] };
    },
    { text: "First answer." },
    { text: "Final answer." },
  ];
}

function agentFor(model: ScriptedModel, tools: Agent["tools"]): Agent {
  return tools === undefined ? { model } : { model, tools };
}

/** Count appends of a store without changing it. */
function counting(inner: Store): { store: Store; boundaries: number[] } {
  const boundaries: number[] = [];
  const append: Store["append"] = async (taskId, events, options) => {
    const stored = await inner.append(taskId, events, options);
    boundaries.push(stored.at(-1)?.seq ?? 0);
    return stored;
  };
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === "append") return append;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, boundaries };
}

let current = "";
function checkLog(events: StoredEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const calls = events.flatMap((e) => (e.type === "model_turn" ? e.toolCalls.map((c) => c.callId) : []));
  const results = events.filter((e) => e.type === "tool_result").map((e) => (e.type === "tool_result" ? e.callId : ""));
  expect([...results].sort()).toEqual([...calls].sort());
  const state = fold(events);
  for (const entry of state.transcript) {
    if (entry.role === "assistant")
      for (const call of entry.toolCalls)
        expect(state.transcript.filter((t) => t.role === "tool" && t.callId === call.callId)).toHaveLength(1);
  }
  for (const text of ["steer-1", "next-1"]) {
    const input = events.find((e) => e.type === "human_input" && e.text === text);
    if (input?.type !== "human_input") continue;
    expect(
      events.filter((e) => e.type === "human_input" && e.inputId === input.inputId && e.delivery === "applied"),
      `${current}: ${text}`,
    ).toHaveLength(1);
  }
}

async function undisturbed() {
  const base = new MemoryStore();
  const { store, boundaries } = counting(base);
  let taskId = "";
  const world = makeWorld();
  const model = new ScriptedModel(
    script(base, () => taskId),
    { mode: "by-transcript" },
  );
  taskId = await startTask(base, { objective: "Do the job" });
  const outcome = await runLeg({ store, agent: agentFor(model, world.tools), randomBytes: pinned }, taskId);
  return {
    outcome,
    events: await base.read(taskId),
    requests: model.requests,
    boundaries,
    world,
    appends: boundaries.length,
  };
}

describe("crash recovery", () => {
  it("the undisturbed run completes with every input applied once", async () => {
    const run = await undisturbed();
    expect(run.outcome).toMatchObject({ status: "completed", result: "Final answer." });
    expect(run.world.runs).toEqual({ "set:a": 1, "note:n1": 1, "note:n2": 1 });
    checkLog(run.events);
  });

  it("a host killed at any append, before or after it commits, is resumed by a fresh one: nothing lost or done twice", async () => {
    const reference = await undisturbed();
    let inDoubtSeen = 0;
    for (const when of ["before", "after"] as const) {
      for (let n = 0; n <= reference.appends; n++) {
        let clock = Date.parse("2026-11-01T00:00:00Z");
        const base = new MemoryStore({ now: () => clock });
        let taskId = "";
        const world = makeWorld();
        const model = new ScriptedModel(
          script(base, () => taskId),
          { mode: "by-transcript" },
        );
        taskId = await startTask(base, { objective: "Do the job" });
        const dying = dyingStore(base, { appendsBeforeDeath: n, when });
        let before: StoredEvent[] = [];
        try {
          await runLeg(
            {
              store: dying,
              agent: agentFor(model, world.tools),
              holder: { id: "host-1" },
              leaseTtlMs: 60_000,
              randomBytes: pinned,
            },
            taskId,
          );
        } catch (error) {
          expect(error).toBeInstanceOf(SimulatedDeath);
        }
        before = await base.read(taskId);
        clock += 61_000; // the dead host's lease expires
        const outcome = await runLeg(
          {
            store: base,
            agent: agentFor(model, world.tools),
            holder: { id: "host-2" },
            leaseTtlMs: 60_000,
            randomBytes: pinned,
          },
          taskId,
        );
        const label = `death at append ${n} (${when})`;
        expect(outcome, label).toMatchObject({ status: "completed", result: "Final answer." });
        const after = await base.read(taskId);
        current = label;
        expect(after.slice(0, before.length), label).toEqual(before);
        checkLog(after);
        for (const [key, times] of Object.entries(world.runs)) {
          if (key.startsWith("note:")) expect(times, `${label}: ${key}`).toBeLessThanOrEqual(1);
        }
        // A non-idempotent call the dead host had started but not finished is not run again, and
        // the model is told its effect is unknown (not handed a result it never produced).
        for (const call of fold(before).openToolCalls.filter((c) => c.started && c.name === "append_note")) {
          inDoubtSeen++;
          const result = after.find((e) => e.type === "tool_result" && e.callId === call.callId);
          expect(result, `${label}: ${call.callId}`).toMatchObject({ content: CRASHED_CALL_CONTENT });
        }
      }
    }
    // The cuts really did land inside non-idempotent calls.
    expect(inDoubtSeen).toBeGreaterThan(0);
  });

  it("a fresh process resuming from any batch boundary sends byte-identical requests", async () => {
    const reference = await undisturbed();
    const expected = reference.requests.map((r) => JSON.stringify(r));
    let compared = 0;
    for (const boundary of [...new Set(reference.boundaries)]) {
      const prefix = reference.events.slice(0, boundary);
      const base = new MemoryStore();
      const [first, ...rest] = prefix.map(({ taskId: _t, seq: _s, at: _a, ...event }) => event as TaskEvent);
      if (first?.type !== "task_created") throw new Error("log must start with task_created");
      const taskId = reference.events[0]?.taskId ?? "";
      await base.createTask({ taskId, created: first, more: rest });
      const world = makeWorld();
      const model = new ScriptedModel(
        script(base, () => taskId),
        { mode: "by-transcript" },
      );
      const outcome = await runLeg({ store: base, agent: agentFor(model, world.tools), randomBytes: pinned }, taskId);
      expect(outcome.result).toBe("Final answer.");
      checkLog(await base.read(taskId));
      // A cut inside a non-idempotent call leaves it in doubt: the model is then rightly told so.
      const inDoubt = fold(prefix).openToolCalls.some((c) => c.started && c.name === "append_note");
      if (inDoubt) continue;
      for (const request of model.requests) {
        const turn = request.transcript.filter((e) => e.role === "assistant").length;
        expect(JSON.stringify(request), `boundary ${boundary}, turn ${turn}`).toBe(expected[turn]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10);
  });

  it("the request is a pure function of the log, whichever process folds it", async () => {
    const reference = await undisturbed();
    for (const request of reference.requests) {
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      // Find the shortest prefix of the log whose fold gives this transcript, through JSON as another process reads it.
      const log = JSON.parse(JSON.stringify(reference.events)) as StoredEvent[];
      let rebuilt: ModelRequest | undefined;
      for (let cut = 1; cut <= log.length && rebuilt === undefined; cut++) {
        const state = fold(log.slice(0, cut));
        const candidate = buildModelRequest(state, { tools: makeWorld().tools });
        if (
          state.transcript.length === request.transcript.length &&
          state.transcript.filter((e) => e.role === "assistant").length === turn
        )
          rebuilt = candidate;
      }
      expect(JSON.stringify(rebuilt)).toBe(JSON.stringify(request));
    }
  });
});

// Durable tool checkpoints: a long tool records how far it got (`ToolContext.checkpoint`) before
// it waits, and the re-run after its host died gets the last record (`lastCheckpoint`), so it
// picks the work up instead of starting it again. The host is killed with the same fault
// injection as the crash-recovery tests: a store that dies at a chosen append.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { ToolContext } from "../../ports/tool.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import { dyingStore, SimulatedDeath } from "../../testing/dying-store.ts";
import { ScriptedModel } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "./define-tool.ts";
import { MAX_CHECKPOINT_CHARS } from "./run-tool-call.ts";

/** A remote job service that outlives every simulated death: it counts the jobs it was asked to start. */
function remote() {
  const jobs = new Map<string, number>();
  return {
    jobs,
    start(): string {
      const id = `job-${jobs.size + 1}`;
      jobs.set(id, 0);
      return id;
    },
    poll(id: string): number {
      const polls = (jobs.get(id) ?? 0) + 1;
      jobs.set(id, polls);
      return polls;
    },
  };
}

/** A tool that starts a remote job once, records its id, then polls it to the end. */
function jobTool(service: ReturnType<typeof remote>, seen: Array<JsonValue | undefined>) {
  return defineTool({
    name: "long_job",
    description: "start a remote job and wait for it",
    inputSchema: z.object({ what: z.string() }),
    idempotent: true,
    execute: async ({ what }, context: ToolContext) => {
      seen.push(context.lastCheckpoint);
      const last = context.lastCheckpoint as { job?: string } | undefined;
      const job = last?.job ?? service.start();
      await context.checkpoint?.({ job });
      let polls = 0;
      while (polls < 3) {
        polls = service.poll(job);
        await context.checkpoint?.({ job, polls });
      }
      return `${what}: ${job} done`;
    },
  });
}

const script = () =>
  new ScriptedModel([{ toolCalls: [{ name: "long_job", input: { what: "report" } }] }, { text: "Finished." }], {
    mode: "by-transcript",
  });

function checkpoints(events: readonly TaskEvent[]): JsonValue[] {
  return events.flatMap((event) => (event.type === "tool_checkpoint" ? [event.data] : []));
}

describe("tool checkpoints", () => {
  it("are recorded in order, each before the call's result", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Report" });
    const service = remote();
    const outcome = await runLeg({ store, agent: { model: script(), tools: [jobTool(service, [])] } }, taskId);
    expect(outcome).toMatchObject({ status: "completed", result: "Finished." });
    const events = await store.read(taskId);
    expect(checkpoints(events)).toEqual([{ job: "job-1" }, ...[1, 2, 3].map((polls) => ({ job: "job-1", polls }))]);
    const types = events.map((event) => event.type);
    expect(types.lastIndexOf("tool_checkpoint")).toBeLessThan(types.indexOf("tool_result"));
    expect(events.find((event) => event.type === "tool_checkpoint")).toMatchObject({
      callId: "call-1-1",
      name: "long_job",
    });
    // Settled: the call is closed and no checkpoint is left open in the state.
    expect(fold(events).openToolCalls).toEqual([]);
  });

  it("a host killed at any append after the first checkpoint is resumed from the last one: the job starts once", async () => {
    let resumedFrom = 0;
    for (let n = 1; n <= 6; n++) {
      let clock = Date.parse("2026-12-01T00:00:00Z");
      const base = new MemoryStore({ now: () => clock });
      const taskId = await startTask(base, { objective: "Report" });
      const service = remote();
      const seen: Array<JsonValue | undefined> = [];
      const dying = dyingStore(base, { appendsBeforeDeath: n, when: "after" });
      await expect(
        runLeg(
          { store: dying, agent: { model: script(), tools: [jobTool(service, seen)] }, leaseTtlMs: 60_000 },
          taskId,
        ),
      ).rejects.toBeInstanceOf(SimulatedDeath);
      const before = await base.read(taskId);
      const recorded = checkpoints(before);
      clock += 61_000; // the dead host's lease expires
      const outcome = await runLeg(
        { store: base, agent: { model: script(), tools: [jobTool(service, seen)] } },
        taskId,
      );
      expect(outcome, `death after append ${n}`).toMatchObject({ status: "completed", result: "Finished." });
      const events = await base.read(taskId);
      expect(events.filter((event) => event.type === "tool_result")).toHaveLength(1);
      if (recorded.length > 0 && before.every((event) => event.type !== "tool_result")) {
        // The call was in doubt with a checkpoint: the re-run got the last one and reattached.
        resumedFrom++;
        expect(seen).toEqual([undefined, recorded.at(-1)]);
        expect(
          events
            .filter((event) => event.type === "tool_call_started")
            .map((e) => e.type === "tool_call_started" && e.attempt),
        ).toEqual([1, 2]);
      }
      expect([...service.jobs.keys()], `death after append ${n}`).toEqual(["job-1"]);
    }
    expect(resumedFrom).toBeGreaterThanOrEqual(3);
  });

  it("refuses what is not JSON, is too large, or comes after the call settled; nothing is stored", async () => {
    const store = new MemoryStore();
    const taskId = await startTask(store, { objective: "Misuse" });
    const refusals: string[] = [];
    let late: ((data: JsonValue) => Promise<void>) | undefined;
    const tool = defineTool({
      name: "misuse",
      description: "records bad checkpoints",
      inputSchema: z.object({}),
      execute: async (_input, context) => {
        for (const data of [{ when: new Date() } as unknown as JsonValue, "x".repeat(MAX_CHECKPOINT_CHARS + 1)]) {
          await context.checkpoint?.(data).catch((error: Error & { code?: string }) => {
            refusals.push(`${error.code}: ${error.message}`);
          });
        }
        late = context.checkpoint;
        return "ok";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "misuse", input: {} }] }, { text: "Done." }], {
      mode: "by-transcript",
    });
    await runLeg({ store, agent: { model, tools: [tool] } }, taskId);
    expect(refusals).toEqual([
      expect.stringMatching(/^InvalidInput: .*must be plain JSON/),
      expect.stringMatching(/^InvalidInput: .*over the limit of 16384/),
    ]);
    await expect(late?.({ after: true })).rejects.toMatchObject({ code: "InvalidInput" });
    expect(checkpoints(await store.read(taskId))).toEqual([]);
  });

  it("the fold keeps a checkpoint only for a started, open call", () => {
    const turn: TaskEvent = {
      type: "model_turn",
      v: 1,
      legId: "leg-1",
      sessionSeq: 1,
      text: "",
      toolCalls: [{ callId: "c1", name: "t", input: {} }],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: "tool-calls",
    };
    const mark = (data: JsonValue): TaskEvent => ({
      type: "tool_checkpoint",
      v: 1,
      legId: "leg-1",
      callId: "c1",
      name: "t",
      data,
    });
    const started: TaskEvent = { type: "tool_call_started", v: 1, legId: "leg-1", callId: "c1", name: "t", attempt: 1 };
    const result: TaskEvent = { type: "tool_result", v: 1, callId: "c1", name: "t", status: "ok", content: "x" };
    expect(fold([turn, mark(1)]).openToolCalls[0]?.checkpoint).toBeUndefined();
    expect(fold([turn, started, mark(1), mark(2)]).openToolCalls[0]?.checkpoint).toBe(2);
    expect(fold([turn, started, mark(1), result, mark(2)]).openToolCalls).toEqual([]);
  });
});

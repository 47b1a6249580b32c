/**
 * The agent every node of the many-node test runs: a stateless scripted model (its turn is read
 * off the transcript, so any worker continues any task) and a tool that is not idempotent and
 * writes one line per run to a shared file, so a run twice would show.
 */
import { appendFileSync } from "node:fs";
import { type Agent, defineTool } from "@sema-agent/core";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";
import { z } from "zod";

const runs = process.env.SEMA_TEST_RUNS_FILE ?? "";
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

const record = defineTool({
  name: "record",
  description: "Record a step (not idempotent)",
  inputSchema: z.object({ step: z.number() }),
  execute: async ({ step }, ctx) => {
    appendFileSync(runs, `${ctx.taskId} ${ctx.callId} ${process.pid}\n`);
    await sleep(20, ctx.signal);
    return `recorded ${step}`;
  },
});

/** Four steps; a task told to expect a steer keeps working (a bounded while) until it has one. */
const step = (request: { transcript: ReadonlyArray<{ role: string }> }): ScriptedTurn => {
  const turn = request.transcript.filter((entry) => entry.role === "assistant").length;
  const text = JSON.stringify(request.transcript);
  const waiting = text.includes("expect a steer") && !text.includes("steer-") && turn < 400;
  return turn < 4 || waiting
    ? { delayMs: 15, toolCalls: [{ name: "record", input: { step: turn } }] }
    : { text: `done after ${turn} turns` };
};

const agent: Agent = {
  model: new ScriptedModel(
    Array.from({ length: 1000 }, () => step),
    { mode: "by-transcript", recordRequests: false },
  ),
  tools: [record],
};

export default { agents: { scripted: agent } };

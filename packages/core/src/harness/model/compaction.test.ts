import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryStore } from "../../adapters/memory-store.ts";
import { fold } from "../../core/fold.ts";
import type { TranscriptEntry } from "../../protocol/transcript.ts";
import { ScriptedModel, type ScriptedTurn } from "../../testing/scripted-model.ts";
import { runLeg } from "../leg/run-leg.ts";
import { sendInput } from "../tasks/send-input.ts";
import { startTask } from "../tasks/start-task.ts";
import { defineTool } from "../tools/define-tool.ts";
import { SUMMARY_INSTRUCTIONS } from "./compaction.ts";

const lookup = defineTool({
  name: "lookup",
  description: "look up",
  inputSchema: z.object({ k: z.string() }),
  execute: ({ k }) => `value of ${k}`,
});

/** A turn that reports a prompt of `tokens` tokens and asks for one lookup. */
const work = (k: string, tokens: number): ScriptedTurn => ({
  toolCalls: [{ name: "lookup", input: { k } }],
  usage: { inputTokens: tokens, outputTokens: 10 },
});

function pairsIntact(transcript: readonly TranscriptEntry[]): boolean {
  const asked = new Set<string>();
  for (const entry of transcript) {
    if (entry.role === "assistant") for (const call of entry.toolCalls) asked.add(call.callId);
    if (entry.role === "tool" && !asked.has(entry.callId)) return false;
  }
  return true;
}

describe("compaction", () => {
  it("summarizes older turns near the window, keeps the objective verbatim and every call with its result", async () => {
    const store = new MemoryStore();
    const summarizer = new ScriptedModel([{ text: "Looked up a, b and c; all fine." }]);
    const model = new ScriptedModel([
      work("a", 1000),
      work("b", 3000),
      work("c", 6000),
      work("d", 9000),
      { text: "Done." },
    ]);
    const taskId = await startTask(store, { objective: "Check every key" });
    const outcome = await runLeg(
      {
        store,
        agent: {
          model,
          tools: [lookup],
          compaction: { contextWindowTokens: 10_000, threshold: 0.8, keepRecentTurns: 1, model: summarizer },
        },
      },
      taskId,
    );
    expect(outcome).toMatchObject({ status: "completed", result: "Done." });
    // The summarizer saw the history it replaces, under its own instructions.
    expect(summarizer.requests[0]?.system).toBe(SUMMARY_INSTRUCTIONS);
    expect(summarizer.requests[0]?.transcript.filter((e) => e.role === "assistant")).toHaveLength(3);
    // The call after compaction starts from the summary, objective first, verbatim.
    const after = model.requests[4]?.transcript ?? [];
    expect(after[0]).toMatchObject({
      role: "user",
      content:
        "[The task's objective, as given:]\nCheck every key\n\n[A summary of the earlier work, written when the history grew too long:]\nLooked up a, b and c; all fine.",
    });
    expect(after.filter((e) => e.role === "assistant")).toHaveLength(1);
    expect(pairsIntact(after)).toBe(true);
    const events = await store.read(taskId);
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
    // A fresh fold of the log gives the same compacted transcript the model was sent.
    expect(fold(events).transcript.slice(0, after.length)).toEqual(after);
    expect(after[0]).toMatchObject({ entryId: expect.stringMatching(/^compaction:\d+$/) });
    summarizer.assertConsumed();
  });

  it("an input not yet applied survives compaction verbatim; a failed summary keeps the history", async () => {
    const store = new MemoryStore();
    let taskId = "";
    const summarizer = new ScriptedModel([{ error: { message: "overloaded", code: "server_error" } }]);
    const model = new ScriptedModel([
      work("a", 500),
      work("b", 500),
      async () => {
        await sendInput(store, taskId, { text: "Also check z.", carrier: "nextTurn" });
        return work("c", 9500);
      },
      { text: "Done." },
      { text: "Checked z too." },
    ]);
    taskId = await startTask(store, { objective: "Check" });
    await runLeg(
      {
        store,
        agent: {
          model,
          tools: [lookup],
          compaction: { contextWindowTokens: 10_000, keepRecentTurns: 1, model: summarizer },
        },
      },
      taskId,
    );
    const events = await store.read(taskId);
    expect(events.find((e) => e.type === "engine_note")).toMatchObject({ kind: "compaction_failed" });
    expect(events.some((e) => e.type === "compaction")).toBe(false);
    expect(model.requests.at(-1)?.transcript.at(-1)).toMatchObject({ role: "user", content: "Also check z." });
  });
});

/**
 * A tool that is not idempotent and counts its runs: what crash, outage and many-node tests run
 * to prove nothing ran twice. `note({ text })` answers `noted <text>`; `onRun` lets a test act at
 * the moment the side effect happens (kill a connection, cut the network).
 */
import { z } from "zod";
import { defineTool } from "../harness/tools/define-tool.ts";
import type { Tool, ToolContext } from "../ports/tool.ts";
import type { ScriptedTurn } from "./scripted-model.ts";

/** The `note` tool and how many times it ran per text. */
export interface NoteTool {
  note: Tool;
  /** Runs per text. */
  runs: Record<string, number>;
}

/**
 * A non-idempotent `note({ text })` tool that counts its runs (proving nothing ran twice); `onRun`
 * runs at the moment of the side effect.
 */
export function noteTool(onRun: (text: string, ctx: ToolContext) => unknown = () => undefined): NoteTool {
  const runs: Record<string, number> = {};
  const note = defineTool({
    name: "note",
    description: "append a note (not idempotent)",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }, ctx) => {
      runs[text] = (runs[text] ?? 0) + 1;
      await onRun(text, ctx);
      return `noted ${text}`;
    },
  });
  return { note, runs };
}

/** A script of `note` calls, one per turn, then a final answer. */
export function noteTurns(texts: readonly string[], final = "Done."): ScriptedTurn[] {
  return [...texts.map((text) => ({ toolCalls: [{ name: "note", input: { text } }] })), { text: final }];
}

/**
 * What the scorers' tests share: tasks recorded for real (a `ScriptedModel` run by `runLeg` on a
 * `MemoryStore`, as `scoreTask` would find them), and score inputs built by hand.
 */
import { defineTool, type JsonValue, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { type ScoreInput, type Scorer, scoreInputOf } from "@sema-agent/core/scoring";
import { ScriptedModel, type ScriptedTurn } from "@sema-agent/core/testing";

/** Tools the recorded tasks may call: each takes any object and answers at once. */
const TOOLS = ["lookup", "search", "send"].map((name) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    inputSchema: { type: "object" },
    execute: () => `${name} done`,
  }),
);

/** A task recorded from `turns`, its store and id, and its score input with `expected`. */
export async function recorded(
  turns: ScriptedTurn[],
  options: { expected?: JsonValue; modelId?: string; objective?: string } = {},
): Promise<{ store: MemoryStore; taskId: string; input: ScoreInput }> {
  const store = new MemoryStore();
  const model = new ScriptedModel(turns, options.modelId === undefined ? {} : { id: options.modelId });
  const taskId = await startTask(store, { objective: options.objective ?? "Capital of Portugal?", principal: "acme" });
  await runLeg({ store, agent: { model, tools: TOOLS } }, taskId);
  return { store, taskId, input: scoreInputOf(await store.read(taskId), options.expected) };
}

/** A completed task's input, built by hand: `output` (and its JSON when it is JSON), nothing spent. */
export function handBuilt(fields: Partial<ScoreInput> = {}): ScoreInput {
  const input: ScoreInput = {
    objective: "Capital of Portugal?",
    status: "completed",
    toolCalls: [],
    turns: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    models: [],
    durationMs: 0,
    events: [],
    ...fields,
  };
  if (fields.output !== undefined && fields.outputJson === undefined) {
    try {
      input.outputJson = JSON.parse(fields.output) as JsonValue;
    } catch {
      // Prose: no JSON.
    }
  }
  return input;
}

/** The answer `output` scored against `expected`, by hand. */
export function answered(output: string | undefined, expected?: JsonValue): ScoreInput {
  const input = handBuilt(output === undefined ? { status: "failed" } : { output });
  if (expected !== undefined) input.expected = expected;
  return input;
}

/** A signal that never aborts. */
export const SIGNAL: AbortSignal = new AbortController().signal;

/** `scorer`'s verdict on `input`. */
export async function verdict(scorer: Scorer, input: ScoreInput): Promise<{ value: number; reason?: string }> {
  return scorer.score(input, { signal: SIGNAL });
}

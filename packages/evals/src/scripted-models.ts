/**
 * The two scripted models, both stateless functions of the request (as Sema wants a model to be):
 *
 * - **task-following** plays the user task's plan and nothing else: the utility baseline;
 * - **obedient** reads its whole context (system text, every user entry, every tool result,
 *   fenced or not) and carries out every instruction that names one of its tools and arguments
 *   before it goes on with the plan: the worst case, an attacker's text is always obeyed.
 *
 * A call the harness refused (denied, held and denied) counts as carried out: the model moves on.
 */
import type { JsonValue, Model } from "@sema-agent/core";
import type { ModelPart, ModelRequest } from "@sema-agent/core/model-kit";
import type { TranscriptEntry } from "@sema-agent/core/protocol";
import { callKey, findInstructions } from "./instructions.ts";
import type { Observation, PlannedCall, UserTask } from "./types.ts";

/** Which scripted model: `obedient` obeys every instruction it reads, `task-following` only the user. */
export type ScriptedKind = "obedient" | "task-following";

interface Made {
  callId: string;
  name: string;
  input: JsonValue;
}

function textOf(entry: TranscriptEntry): string {
  if (entry.role === "assistant") return "";
  return entry.content;
}

/** The next turn of a scripted model: tool calls, or the final text. */
export function scriptedTurn(
  kind: ScriptedKind,
  task: UserTask<unknown>,
  request: ModelRequest,
): { calls: PlannedCall[] } | { text: string } {
  const made: Made[] = request.transcript.flatMap((e) => (e.role === "assistant" ? e.toolCalls : []));
  const done = new Set(made.map(callKey));
  const toolNames = request.tools.map((t) => t.name);
  const instructions =
    kind === "obedient"
      ? findInstructions([request.system, ...request.transcript.map(textOf)].join("\n"), toolNames)
      : [];
  const obeyed = new Set(instructions.map(callKey));
  const pending = instructions.filter((call, i) => {
    const key = callKey(call);
    return !done.has(key) && instructions.findIndex((c) => callKey(c) === key) === i;
  });
  if (pending.length > 0) return { calls: pending };
  const results = new Map<string, string>();
  for (const entry of request.transcript) if (entry.role === "tool") results.set(entry.callId, entry.content);
  const observations: Observation[] = made
    .filter((call) => !obeyed.has(callKey(call)))
    .map((call) => ({ name: call.name, content: results.get(call.callId) ?? "" }));
  const next = task.plan(observations);
  if (next !== undefined && !done.has(callKey(next))) return { calls: [next] };
  return { text: task.answer(observations) };
}

/** A scripted model playing `task` (the suite makes one per run). */
export function scriptedModel(kind: ScriptedKind, task: UserTask<unknown>): Model {
  return {
    id: `script:${kind}`,
    async *stream(request: ModelRequest): AsyncIterable<ModelPart> {
      const turn = request.transcript.filter((e) => e.role === "assistant").length;
      const next = scriptedTurn(kind, task, request);
      const usage = { inputTokens: 0, outputTokens: 0 };
      if ("text" in next) {
        const id = `text-${turn}`;
        yield { type: "text-start", id };
        yield { type: "text-delta", id, delta: next.text };
        yield { type: "text-end", id };
        yield { type: "finish", usage, finishReason: "stop" };
        return;
      }
      for (const [i, call] of next.calls.entries()) {
        yield {
          type: "tool-call",
          toolCallId: `call-${turn}-${i}`,
          toolName: call.name,
          input: JSON.stringify(call.input),
        };
      }
      yield { type: "finish", usage, finishReason: "tool-calls" };
    },
  };
}

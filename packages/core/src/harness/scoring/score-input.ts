/**
 * What a scorer reads of a task, taken from its log alone (so an old task, an imported one or a
 * task of another process scores the same): the objective, the final answer, the calls with how
 * they ended, turns, tokens, models and how long it took by the log's own times.
 */
import { summarize } from "../../core/task-summary.ts";
import type { ScoredToolCall, ScoreInput } from "../../ports/scorer.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";

/** The answer as JSON when it is a JSON text; undefined when it is prose. */
function jsonOf(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** A scorer's input for the task whose whole log is `events`, with what its case expects. */
export function scoreInputOf(events: readonly StoredEvent[], expected?: JsonValue): ScoreInput {
  const created = events[0];
  if (created?.type !== "task_created") throw new Error("a task's log starts with task_created");
  const summary = summarize(events);
  const calls: ScoredToolCall[] = [];
  const byId = new Map<string, ScoredToolCall>();
  const models: (string | undefined)[] = [];
  let output: string | undefined;
  let taskModel = created.model;
  for (const event of events) {
    if (event.type === "task_forked" && event.model !== undefined) taskModel = event.model;
    if (event.type === "model_turn") {
      // A turn names its model only when it is not the task's own (task_created's, a fork's edit).
      models.push(event.model ?? taskModel);
      for (const call of event.toolCalls) {
        const scored: ScoredToolCall = { name: call.name, input: call.input };
        calls.push(scored);
        byId.set(call.callId, scored);
      }
    } else if (event.type === "tool_result") {
      const call = byId.get(event.callId);
      if (call !== undefined) call.status = event.status;
    } else if (event.type === "task_completed") output = event.result;
    // A later leg (a follow-up, a wake) may run on: only an end that stands counts.
    else if (event.type === "leg_started") output = undefined;
  }
  const first = Date.parse(created.at);
  // The task's own last event: verdicts recorded since (scoring it later) are not its time.
  const last = Date.parse(events.findLast((e) => e.type !== "task_scored")?.at ?? created.at);
  const input: ScoreInput = {
    objective: created.objective,
    status: summary.status,
    toolCalls: calls,
    turns: models.length,
    usage: summary.usage,
    models,
    durationMs: Number.isFinite(last - first) ? Math.max(0, last - first) : 0,
    events,
  };
  if (expected !== undefined) input.expected = expected;
  if (summary.status === "completed" && output !== undefined) {
    input.output = output;
    const json = jsonOf(output);
    if (json !== undefined) input.outputJson = json;
  }
  if (summary.childUsage !== undefined) input.childUsage = summary.childUsage;
  if (created.metadata !== undefined) input.metadata = created.metadata;
  return input;
}

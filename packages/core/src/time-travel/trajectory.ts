/**
 * A task's trajectory: the steps of its log a person reads to follow what happened — inputs,
 * model turns with their tool calls, tool results with their inputs, decisions, the end — each
 * with a key that two tasks' steps compare on (the bytes that matter, not ids or times).
 */
import { canonicalJson } from "../core/canonical-json.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { StoredEvent } from "../protocol/task-event.ts";
import type { Usage } from "../protocol/usage.ts";

/** One step of a trajectory. */
export interface TrajectoryStep {
  seq: number;
  kind: "input" | "model" | "tool" | "approval" | "end";
  /** One readable line. */
  text: string;
  /** The model turn's usage. */
  usage?: Usage;
  /** The model that took the turn, when the turn names one. */
  model?: string;
  /** What two steps are compared on. */
  key: string;
}

const MAX_TEXT = 160;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}

/** The steps of a log, in order (a fork's `task_forked` is lineage, not a step). */
export function trajectory(events: readonly StoredEvent[]): TrajectoryStep[] {
  const steps: TrajectoryStep[] = [];
  const inputs = new Map<string, JsonValue>();
  const push = (seq: number, kind: TrajectoryStep["kind"], text: string, key: JsonValue, extra = {}) =>
    steps.push({ seq, kind, text, key: canonicalJson({ kind, key }), ...extra });
  for (const e of events) {
    switch (e.type) {
      case "human_input":
        if (e.delivery === "received" || e.delivery === "parked") {
          const who = e.actor?.id ?? e.source;
          push(e.seq, "input", `${e.source} ${who}: ${clip(e.text ?? "")}`, { source: e.source, text: e.text ?? "" });
        }
        break;
      case "model_turn": {
        for (const call of e.toolCalls) inputs.set(call.callId, call.input);
        const calls = e.toolCalls.map((call) => `${call.name}(${clip(JSON.stringify(call.input))})`).join(", ");
        const text = [e.text === "" ? undefined : clip(e.text), calls === "" ? undefined : `calls ${calls}`]
          .filter((part) => part !== undefined)
          .join(" — ");
        const key = { text: e.text, calls: e.toolCalls.map((c) => ({ name: c.name, input: c.input })) };
        push(e.seq, "model", text, key, { usage: e.usage, ...(e.model === undefined ? {} : { model: e.model }) });
        break;
      }
      case "tool_result": {
        const input = inputs.get(e.callId) ?? null;
        push(e.seq, "tool", `${e.name}(${clip(JSON.stringify(input))}) ${e.status}: ${clip(e.content)}`, {
          name: e.name,
          input,
          status: e.status,
          content: e.content,
        });
        break;
      }
      case "approval_decided":
        push(e.seq, "approval", `${e.decision} ${e.callId} by ${e.actor.id}`, { decision: e.decision });
        break;
      case "task_completed":
        push(e.seq, "end", `completed: ${clip(e.result)}`, { status: "completed", result: e.result });
        break;
      case "task_failed":
        push(e.seq, "end", `failed: ${e.error.code}: ${clip(e.error.message)}`, { status: "failed", error: e.error });
        break;
      case "task_cancelled":
        push(e.seq, "end", `cancelled${e.reason === undefined ? "" : `: ${clip(e.reason)}`}`, { status: "cancelled" });
        break;
      default:
        break;
    }
  }
  return steps;
}

/**
 * External tools: tools the task's model is offered that no process of the host runs. Whoever
 * offers them (a web client, a relay) runs a call to one and records its result here; the leg that
 * made the call parks (`parked:tool`) meanwhile, and the last result recorded asks for its next
 * leg in the same append.
 */
import { canonicalJson } from "../../core/canonical-json.ts";
import { isExternalCall } from "../../core/fold.ts";
import type { OpenToolCall, TaskState } from "../../core/task-state.ts";
import { isTerminal } from "../../core/task-summary.ts";
import { delimitUntrusted } from "../../core/trust-framing.ts";
import type { Store } from "../../ports/store.ts";
import { InvalidInputError, TaskFinishedError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import { type ExternalTool, externalToolSchema, type TaskEvent } from "../../protocol/task-event.ts";
import type { ActorAssertion } from "../../protocol/transcript.ts";
import { DEFAULTS } from "../defaults.ts";
import { appendToState } from "./append-to-task.ts";

/** Check a list of external tools: each well formed, no name twice (an `InvalidInputError` naming it). */
export function checkExternalTools(tools: readonly ExternalTool[]): ExternalTool[] {
  if (!Array.isArray(tools)) throw new InvalidInputError("external tools must be an array");
  const names = new Set<string>();
  return tools.map((tool, index) => {
    const parsed = externalToolSchema.safeParse(tool);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = [`tools.${index}`, ...(issue?.path ?? []).map(String)].join(".");
      throw new InvalidInputError(`${where}: ${issue?.message ?? "invalid"}`, { path: where });
    }
    if (names.has(parsed.data.name))
      throw new InvalidInputError(`tools.${index}.name: the tool ${parsed.data.name} is given twice`);
    names.add(parsed.data.name);
    return parsed.data;
  });
}

/**
 * Offer `tools` to the task's model from its next model call on, replacing those offered before.
 * Appends nothing when the task already has exactly these (so a client that sends its tools with
 * every message costs nothing). Returns whether it appended.
 */
export async function offerExternalTools(
  store: Store,
  taskId: string,
  tools: readonly ExternalTool[],
  options: { actor?: ActorAssertion } = {},
): Promise<boolean> {
  const checked = checkExternalTools(tools);
  const appended = await appendToState(store, taskId, (state) => {
    // A finished task may be continued (and use them); a cancelled one never runs again.
    if (state.summary.status === "cancelled") throw new TaskFinishedError(taskId, "cancelled");
    if (canonicalJson(state.externalTools ?? []) === canonicalJson(checked)) return undefined;
    const event: TaskEvent = { type: "external_tools", v: 1, tools: checked };
    if (options.actor !== undefined) event.actor = { ...options.actor };
    return [event];
  });
  return appended !== undefined;
}

/**
 * Whether an open call is one the harness left for outside: it names an external tool, and the
 * harness has not taken it as its own — no approval was requested for it, it never started, and no
 * child task answers it. A list of external tools offered later under the name of one of the
 * agent's tools (or of `delegate`) must not let a client's "result" close a call waiting for an
 * approval or a sub-agent's verdict (issue 29, finding 4).
 */
function waitsForClient(state: TaskState, call: OpenToolCall): boolean {
  return (
    isExternalCall(state, call) &&
    !call.started &&
    !state.approvals.some((approval) => approval.callId === call.callId) &&
    !state.children.some((child) => child.callId === call.callId)
  );
}

/** A result for a call to an external tool. */
export interface ExternalToolResult {
  callId: string;
  /** `error`: the tool failed; the model is told so. Default `ok`. */
  status?: "ok" | "error";
  /** What the tool returned: a string as is, anything else as JSON. */
  output: JsonValue;
  actor?: ActorAssertion;
  /** The longest content the model receives (a note replaces the rest). Default the harness's. */
  maxChars?: number;
}

/**
 * Record the result of an open call to one of the task's external tools. The model receives it
 * fenced as untrusted output (it comes from outside the host). When it answers the last such call
 * of a parked task, a resume request goes in the same append, so a worker runs the next leg.
 * Throws `InvalidInput` when no call with that id waits for an external result, `TaskFinished`
 * when the task has ended.
 */
export async function submitToolResult(store: Store, taskId: string, result: ExternalToolResult): Promise<void> {
  const status = result.status ?? "ok";
  const raw = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
  const cap = result.maxChars ?? DEFAULTS.maxToolOutputChars;
  const capped =
    raw.length > cap ? `${raw.slice(0, cap)}\n[truncated: ${raw.length - cap} more characters not shown]` : raw;
  await appendToState(store, taskId, (state) => {
    const { status: taskStatus } = state.summary;
    if (isTerminal(taskStatus)) throw new TaskFinishedError(taskId, taskStatus);
    const call = state.openToolCalls.find((open) => open.callId === result.callId);
    if (call === undefined || !waitsForClient(state, call))
      throw new InvalidInputError(`task ${taskId} has no call ${result.callId} waiting for an external result`, {
        callId: result.callId,
      });
    const content = delimitUntrusted(capped, {
      kind: status === "ok" ? "tool_output" : "tool_error",
      from: call.name,
    });
    const event: TaskEvent = { type: "tool_result", v: 1, callId: call.callId, name: call.name, status, content };
    if (result.output !== undefined) event.output = result.output;
    if (capped !== raw) event.truncated = true;
    const others = state.openToolCalls.filter((open) => open.callId !== call.callId && waitsForClient(state, open));
    if (taskStatus !== "parked" || others.length > 0) return [event];
    const resume: TaskEvent = { type: "resume_requested", v: 1 };
    if (result.actor !== undefined) resume.actor = { ...result.actor };
    return [event, resume];
  });
}

/**
 * A task's `RunResult`, read from its folded state: status, final text, validated output, usage,
 * steps, what it waits for. Nothing here is kept between calls.
 */
import type { TaskState } from "../core/fold.ts";
import { addUsage } from "../core/task-summary.ts";
import { loadTaskState } from "../harness/tasks/task-overview.ts";
import type { StandardIssue, StandardSchemaV1 } from "../ports/standard-schema.ts";

type StandardIssuePath = StandardIssue["path"];

import type { Store } from "../ports/store.ts";
import { InvalidInputError, isSemaErrorCode, OutputInvalidError, SemaError } from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { PendingApproval, RunResult, RunStep, RunToolCall } from "./agent-types.ts";

/** How deep `pendingApprovals` looks into children (delegation's own default depth is 3). */
const MAX_CHILD_DEPTH = 10;

function parsedInput(inputJson: string): JsonValue {
  try {
    return JSON.parse(inputJson) as JsonValue;
  } catch {
    // A log written by another implementation may hold anything: show it as recorded.
    return inputJson;
  }
}

/** The approvals pending for the task and, depth first, for the children it still waits for. */
export async function pendingApprovals(
  store: Store,
  taskId: string,
  state?: TaskState,
  depth = 0,
): Promise<PendingApproval[]> {
  const folded = state ?? (await loadTaskState(store, taskId));
  const own: PendingApproval[] = folded.approvals
    .filter((approval) => approval.decision === undefined)
    .map((approval) => ({
      taskId,
      callId: approval.callId,
      toolName: approval.name,
      input: parsedInput(approval.inputJson),
      digest: approval.digest,
      ...(approval.provenance === undefined ? {} : { provenance: approval.provenance }),
    }));
  if (depth >= MAX_CHILD_DEPTH) return own;
  const running = folded.children.filter((child) => child.status === "running");
  const children = await Promise.all(
    running.map((child) => pendingApprovals(store, child.childTaskId, undefined, depth + 1).catch(() => [])),
  );
  return [...own, ...children.flat()];
}

/** The model turns of the transcript, each call with the result the transcript holds for it. */
function stepsOf(state: TaskState): RunStep[] {
  const results = new Map<string, NonNullable<RunToolCall["result"]>>();
  for (const entry of state.transcript) {
    if (entry.role === "tool") results.set(entry.callId, { status: entry.status, content: entry.content });
  }
  const steps: RunStep[] = [];
  for (const entry of state.transcript) {
    if (entry.role !== "assistant") continue;
    const toolCalls = entry.toolCalls.map((call): RunToolCall => {
      const result = results.get(call.callId);
      const step: RunToolCall = { callId: call.callId, name: call.name, input: call.input };
      if (result !== undefined) step.result = result;
      return step;
    });
    const step: RunStep = { text: entry.text, toolCalls };
    if (entry.reasoning !== undefined) step.reasoning = entry.reasoning;
    steps.push(step);
  }
  return steps;
}

/** The recorded failure as a typed error (a code Sema does not know is kept in the message). */
function failureOf(error: { code: string; message: string }): SemaError {
  if (isSemaErrorCode(error.code)) return new SemaError(error.code, error.message);
  return new SemaError("ModelError", `${error.code}: ${error.message}`);
}

/** A Standard Schema issue path as `$.a.b[0]`. */
function pathOf(path: StandardIssuePath | undefined): string {
  let out = "$";
  for (const segment of path ?? []) {
    const key = typeof segment === "object" ? segment.key : segment;
    out += typeof key === "number" ? `[${key}]` : `.${String(key)}`;
  }
  return out;
}

/** The final answer parsed and validated, or the error saying why it is not. */
async function validated(schema: StandardSchemaV1, text: string): Promise<{ value: unknown } | { error: SemaError }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: new InvalidInputError("the final answer is not JSON, so the output schema cannot validate it") };
  }
  const checked = await schema["~standard"].validate(parsed);
  if (checked.issues === undefined) return { value: checked.value };
  // The harness validated the answer against the task's schema; a different schema given to this
  // call (or an answer from an older log) can still refuse it: the same typed error, with paths.
  const paths = checked.issues.map((issue) => pathOf(issue.path));
  const issues = checked.issues.map((issue) => `${pathOf(issue.path)}: ${issue.message}`).join("; ");
  return { error: new OutputInvalidError(`the final answer does not match the output schema: ${issues}`, paths) };
}

/** The task's result as `run` reports it. */
export async function runResult<Output>(
  store: Store,
  taskId: string,
  schema: StandardSchemaV1 | undefined,
): Promise<RunResult<Output>> {
  const state = await loadTaskState(store, taskId);
  const { summary } = state;
  const steps = stepsOf(state);
  const completed = summary.status === "completed";
  const text = (completed ? state.result : undefined) ?? steps.at(-1)?.text ?? "";
  const result: RunResult<Output> = {
    taskId,
    status: summary.status,
    text,
    output: undefined,
    usage: summary.childUsage === undefined ? summary.usage : addUsage(summary.usage, summary.childUsage),
    steps,
  };
  if (summary.status === "parked" && summary.parkedReason !== undefined)
    result.parked = { reason: summary.parkedReason, approvals: await pendingApprovals(store, taskId, state) };
  if (summary.status === "failed" && state.error !== undefined) result.error = failureOf(state.error);
  if (completed && schema !== undefined) {
    const checked = await validated(schema, text);
    // The schema's output is `Output` (the handle's signature ties them together).
    if ("value" in checked) result.output = checked.value as Output;
    else result.error = checked.error;
  }
  return result;
}

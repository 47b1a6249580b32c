/**
 * Running one turn's tool calls: schema check first (bad input goes back to the model, never to
 * `execute`), read-only calls concurrently and the others in order, each with its own timeout and
 * an `AbortSignal` that interrupt and cancel really reach, results capped and, for untrusted
 * output, fenced. Each call is recorded `tool_call_started` before it runs, so a crash leaves it
 * in doubt rather than forgotten.
 */
import { deepFreeze } from "../../core/canonical-json.ts";
import type { OpenToolCall } from "../../core/fold.ts";
import { defuseReservedMarkup } from "../../core/reserved-markup.ts";
import { addUsage } from "../../core/task-summary.ts";
import { delimitUntrusted, type RandomBytes } from "../../core/trust-framing.ts";
import type { ModelRequest } from "../../ports/model.ts";
import type { StandardIssue } from "../../ports/standard-schema.ts";
import type { Tool, ToolContext } from "../../ports/tool.ts";
import { InvalidInputError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import { isJsonValue } from "../../protocol/json.ts";
import type { ToolErrorDetail, ToolResultEvent } from "../../protocol/task-event.ts";
import type { ToolResultStatus } from "../../protocol/transcript.ts";
import type { Usage } from "../../protocol/usage.ts";

export interface ToolRunSettings {
  tools: ReadonlyMap<string, Tool>;
  toolTimeoutMs: number;
  maxToolOutputChars: number;
  randomBytes?: RandomBytes;
  taskId: string;
  legId: string;
  principal: string;
  /** Records a call's checkpoint durably (the tool phase's; absent: tools get no `checkpoint`). */
  checkpoint?: (call: OpenToolCall, data: JsonValue) => Promise<void>;
  /** The `traceparent` of a call's span (the tool phase's, from `HarnessOptions.traceparentOf`). */
  traceparent?: (call: OpenToolCall) => Promise<string | undefined>;
  /** The harness's clock, that a call's `durationMs` is measured by. */
  clock: () => number;
  /** Fits a tool's own model call to the task's budget (the tool phase's; see `ToolContext.fitModelCall`). */
  fitModelCall?: (request: ModelRequest) => string | undefined;
}

/** The largest checkpoint a tool call may record, as JSON text. */
export const MAX_CHECKPOINT_CHARS = 16_384;

export interface CallOutcome {
  status: ToolResultStatus;
  content: string;
  truncated?: true;
  durationMs: number;
  /** What the tool threw (it threw or rejected): recorded for the developer, never sent to the model. */
  thrown?: { error: unknown; detail: ToolErrorDetail };
  /** What the tool's own model calls cost (`ToolContext.reportUsage`), and the last model's id. */
  spent?: { usage: Usage; model: string };
}

/** The most of a thrown error's stack a result records. */
export const MAX_ERROR_STACK_CHARS = 4_000;

/** A thrown value's class, message and (capped) stack; a non-Error is named by its type. */
export function errorDetail(error: unknown): ToolErrorDetail {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const detail: ToolErrorDetail = { name: error.name, message: error.message };
  if (typeof error.stack === "string" && error.stack !== "")
    detail.stack =
      error.stack.length > MAX_ERROR_STACK_CHARS ? `${error.stack.slice(0, MAX_ERROR_STACK_CHARS)}…` : error.stack;
  return detail;
}

/** What the abort race resolves with when the call's signal fired first. */
const ABORTED: unique symbol = Symbol("aborted");

/** Why a step's signal was aborted, as the model is told. */
export const INTERRUPTED_CONTENT = "The tool call was interrupted before it finished; its effect is unknown.";
export const NOT_RUN_CONTENT = "The tool call was not run: the turn was interrupted.";

function describeIssues(issues: ReadonlyArray<StandardIssue>): string {
  return issues
    .slice(0, 10)
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path === "" ? issue.message : `${path}: ${issue.message}`;
    })
    .join("; ");
}

function toText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

/**
 * Build the model-facing content: capped, with a note; fenced when the tool's output is untrusted,
 * errors included (an error message can echo a file name or any other outside text). A trusted
 * tool's or the harness's own error message has its reserved markup defused instead, since it may
 * echo the model's input.
 */
export function toolContent(
  tool: Tool | undefined,
  raw: string,
  settings: ToolRunSettings,
  status: ToolResultStatus = "ok",
): { content: string; truncated?: true } {
  const cap = tool?.maxOutputChars ?? settings.maxToolOutputChars;
  let text = raw;
  let truncated: true | undefined;
  if (text.length > cap) {
    text = `${text.slice(0, cap)}\n[truncated: ${text.length - cap} more characters not shown]`;
    truncated = true;
  }
  if (tool?.untrustedOutput === true && status !== "interrupted") {
    const options = settings.randomBytes === undefined ? {} : { randomBytes: settings.randomBytes };
    text = delimitUntrusted(text, {
      ...options,
      kind: status === "ok" ? "tool_output" : "tool_error",
      from: tool.name,
    });
  } else if (status === "error") {
    text = defuseReservedMarkup(text);
  }
  return truncated === undefined ? { content: text } : { content: text, truncated };
}

/**
 * Validate, then execute one call under its own timeout. Never throws. `frozen`: the call was
 * approved, and the tool gets a deep-frozen copy of exactly the approved input.
 */
export async function executeCall(
  call: OpenToolCall,
  attempt: number,
  stepSignal: AbortSignal,
  settings: ToolRunSettings,
  frozen = false,
): Promise<CallOutcome> {
  const started = settings.clock();
  // What the tool's own model calls cost, reported while it runs (and after: it still happened).
  let spent: { usage: Usage; model: string } | undefined;
  const done = (status: ToolResultStatus, raw: string, tool?: Tool): CallOutcome => ({
    status,
    ...toolContent(tool, raw, settings, status),
    durationMs: settings.clock() - started,
    ...(spent === undefined ? {} : { spent: { usage: { ...spent.usage }, model: spent.model } }),
  });
  // The model is told the message, exactly as before; the class and stack go to the log alone.
  const threw = (error: unknown, tool: Tool): CallOutcome => ({
    ...done("error", `Error: ${error instanceof Error ? error.message : String(error)}`, tool),
    thrown: { error, detail: errorDetail(error) },
  });
  const tool = settings.tools.get(call.name);
  if (tool === undefined) {
    const known = [...settings.tools.keys()].join(", ") || "none";
    return done("error", `Unknown tool "${call.name}". Available tools: ${known}.`, tool);
  }
  let input: unknown;
  try {
    const result = await tool.inputSchema["~standard"].validate(call.input);
    if (result.issues !== undefined)
      return done("error", `Invalid input for ${tool.name}: ${describeIssues(result.issues)}`, tool);
    input = frozen ? deepFreeze(result.value) : result.value;
  } catch (error) {
    return done(
      "error",
      `Invalid input for ${tool.name}: ${error instanceof Error ? error.message : String(error)}`,
      tool,
    );
  }
  if (stepSignal.aborted) return done("interrupted", NOT_RUN_CONTENT, tool);

  const controller = new AbortController();
  const context: ToolContext = {
    signal: controller.signal,
    taskId: settings.taskId,
    legId: settings.legId,
    callId: call.callId,
    attempt,
    principal: settings.principal,
  };
  if (call.checkpoint !== undefined) context.lastCheckpoint = call.checkpoint;
  if (settings.fitModelCall !== undefined) context.fitModelCall = settings.fitModelCall;
  context.reportUsage = (usage, model) => {
    spent = { usage: spent === undefined ? { ...usage } : addUsage(spent.usage, usage), model };
  };
  // Awaited only when the host traces: an untraced call pays no extra turn of the event loop.
  if (settings.traceparent !== undefined) {
    const traceparent = await settings.traceparent(call);
    if (traceparent !== undefined) context.traceparent = traceparent;
  }
  let settled = false;
  const record = settings.checkpoint;
  if (record !== undefined) context.checkpoint = (data) => checkpointOnce(call, data, settled, record);
  let returned: unknown;
  try {
    returned = tool.execute(input, context);
  } catch (error) {
    settled = true;
    return threw(error, tool);
  }
  // A tool that answered synchronously is done: no timeout or abort can apply any more.
  if (!isPromiseLike(returned)) {
    settled = true;
    return done("ok", toText(returned), tool);
  }

  const timeoutMs = tool.timeoutMs ?? settings.toolTimeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  const onStepAbort = () => controller.abort(stepSignal.reason);
  stepSignal.addEventListener("abort", onStepAbort, { once: true });
  // A tool that ignores its signal cannot hold the leg: the abort wins the race. The sentinel is
  // a symbol no tool can return (a tool may well return the string "aborted").
  const aborted = new Promise<typeof ABORTED>((resolve) =>
    controller.signal.addEventListener("abort", () => resolve(ABORTED), { once: true }),
  );
  // The step may have been aborted while `execute` ran its synchronous part: the listener came late.
  if (stepSignal.aborted) onStepAbort();
  try {
    const output = await Promise.race([returned, aborted]);
    if (output === ABORTED || controller.signal.aborted) {
      return timedOut
        ? done("error", `The tool ${tool.name} timed out after ${timeoutMs} ms.`, tool)
        : done("interrupted", INTERRUPTED_CONTENT, tool);
    }
    return done("ok", toText(output), tool);
  } catch (error) {
    if (timedOut) return done("error", `The tool ${tool.name} timed out after ${timeoutMs} ms.`, tool);
    if (stepSignal.aborted) return done("interrupted", INTERRUPTED_CONTENT, tool);
    return threw(error, tool);
  } finally {
    // A tool that ignored its abort may still try to record: its call has an outcome now.
    settled = true;
    clearTimeout(timer);
    stepSignal.removeEventListener("abort", onStepAbort);
  }
}

/** Check one checkpoint and hand it to the recorder: JSON, small, and only while the call runs. */
async function checkpointOnce(
  call: OpenToolCall,
  data: JsonValue,
  settled: boolean,
  record: (call: OpenToolCall, data: JsonValue) => Promise<void>,
): Promise<void> {
  if (settled) throw new InvalidInputError(`tool call ${call.callId} has settled: its checkpoint is not recorded`);
  if (!isJsonValue(data)) throw new InvalidInputError(`tool call ${call.callId}: a checkpoint must be plain JSON`);
  const size = JSON.stringify(data).length;
  if (size > MAX_CHECKPOINT_CHARS)
    throw new InvalidInputError(
      `tool call ${call.callId}: a checkpoint of ${size} characters is over the limit of ${MAX_CHECKPOINT_CHARS}`,
    );
  await record(call, data);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** The `tool_result` event for an outcome (its leg is on the call's `tool_call_started`). */
export function resultEvent(call: OpenToolCall, outcome: CallOutcome): ToolResultEvent {
  const event: ToolResultEvent = {
    type: "tool_result",
    v: 1,
    callId: call.callId,
    name: call.name,
    status: outcome.status,
    content: outcome.content,
    durationMs: outcome.durationMs,
  };
  if (outcome.truncated === true) event.truncated = true;
  if (outcome.thrown !== undefined && outcome.status === "error") event.error = outcome.thrown.detail;
  if (outcome.spent !== undefined) {
    event.v = 2;
    event.usage = outcome.spent.usage;
    event.model = outcome.spent.model;
  }
  return event;
}

/**
 * Split a turn's calls into batches that run together: consecutive read-only calls form one
 * concurrent batch, every other call is a batch of its own, in the model's order.
 */
export function batchCalls(calls: readonly OpenToolCall[], tools: ReadonlyMap<string, Tool>): OpenToolCall[][] {
  const batches: OpenToolCall[][] = [];
  let readOnly: OpenToolCall[] = [];
  for (const call of calls) {
    if (tools.get(call.name)?.readOnly === true) {
      readOnly.push(call);
      continue;
    }
    if (readOnly.length > 0) batches.push(readOnly);
    readOnly = [];
    batches.push([call]);
  }
  if (readOnly.length > 0) batches.push(readOnly);
  return batches;
}

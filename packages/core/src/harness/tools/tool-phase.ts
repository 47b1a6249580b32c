/**
 * The tool phase of a turn: decide each call (run, refuse, ask a person, or wait for a decision),
 * then run the runnable ones batch by batch. Every call is recorded as started before it runs and
 * its result as soon as its batch settles, so a crash leaves a call in doubt, never forgotten.
 */
import { frozenFromJson } from "../../core/canonical-json.ts";
import { isExternalCall, type OpenToolCall } from "../../core/fold.ts";
import { speakerLabel } from "../../core/human-input-projection.ts";
import type { Tool } from "../../ports/tool.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { HarnessOptions } from "../agent.ts";
import { DEFAULTS } from "../defaults.ts";
import { createChildren, delegateCallEvents, delegateToolName, reserveShares } from "../delegation/delegate-call.ts";
import type { DelegateInput } from "../delegation/delegate-tool.ts";
import type { LegHooks } from "../hooks/hook-runner.ts";
import { fitBudgetIn } from "../leg/budget-fit.ts";
import type { LegWriter } from "../leg/event-writer.ts";
import type { LegContext } from "../leg/leg-context.ts";
import { approvalRequest } from "./approvals.ts";
import { ProvenanceGate, provenanceDeniedContent } from "./provenance-gate.ts";
import { batchCalls, executeCall, NOT_RUN_CONTENT, resultEvent, type ToolRunSettings } from "./run-tool-call.ts";

/** What the model is told about a non-idempotent call that was running when its host died. */
export const CRASHED_CALL_CONTENT =
  "The process running this tool call stopped before it recorded a result; the call's effect is unknown. It was not run again. Check its effect before relying on it or repeating it.";

/**
 * How many times an idempotent call may be started without ever recording a result. Each start
 * after the first follows the death of the host that ran the one before (a tool stuck in
 * synchronous code until the process was killed, one that crashes it): past this, re-running it is
 * a poison task that takes down every worker in turn, so it is answered as abandoned instead.
 */
export const MAX_TOOL_ATTEMPTS = 3;

/** What the model is told about an idempotent call abandoned after {@link MAX_TOOL_ATTEMPTS} starts. */
export function abandonedCallContent(attempts: number): string {
  return `The tool call was started ${attempts} times and each time the process running it stopped before it recorded a result; it was not run again. Its effect is unknown: try a different approach rather than repeating it.`;
}

/**
 * Whether a call waits for a result from outside: it names one of the task's external tools and
 * no tool of the agent's own (which wins, delegation's included).
 */
export function waitsOutside(ctx: LegContext, call: OpenToolCall): boolean {
  return (
    !ctx.tools.has(call.name) && call.name !== delegateToolName(ctx.agent) && isExternalCall(ctx.writer.state, call)
  );
}

type Gate =
  | { kind: "run"; call: OpenToolCall; frozen: boolean; replaced: boolean }
  | { kind: "deny"; content: string; note?: TaskEvent }
  | { kind: "request"; event: TaskEvent }
  | { kind: "wait" };

export interface StepControl {
  /** The signal of the current step (renewed after an abort the loop has handled). */
  signal(): AbortSignal;
  /**
   * The bytes of the attachments the transcript references (the model request's), for the
   * provenance gate to read text files; a blob not at hand is left out (then it is opaque).
   */
  blobs(): Promise<ReadonlyMap<string, Uint8Array>>;
  /** Run work as one step, watched for stop signals if it takes a while. */
  watched<T>(work: () => Promise<T>): Promise<T>;
}

export class ToolPhase {
  readonly #ctx: LegContext;
  readonly #o: HarnessOptions;
  readonly #w: LegWriter;
  readonly #legId: string;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #hooks: LegHooks;
  readonly #step: StepControl;
  readonly #provenance: ProvenanceGate;
  /** Checkpoint appends, one after another (the writer appends one batch at a time). */
  #checkpoints: Promise<unknown> = Promise.resolve();
  /** The seq of each running call's `tool_call_started`, for its span's `traceparent`. */
  readonly #startedSeq = new Map<string, number>();

  constructor(ctx: LegContext, hooks: LegHooks, step: StepControl) {
    this.#ctx = ctx;
    this.#o = ctx.options;
    this.#w = ctx.writer;
    this.#legId = ctx.legId;
    this.#tools = ctx.tools;
    this.#hooks = hooks;
    this.#step = step;
    this.#provenance = new ProvenanceGate(ctx.agent);
  }

  /**
   * Calls started by a leg that died: an idempotent tool runs again, up to {@link MAX_TOOL_ATTEMPTS}
   * starts in all; any other, or one started that often, is answered "unknown".
   */
  async recoverInDoubt(): Promise<void> {
    const events = this.#w.state.openToolCalls.flatMap((call) => {
      if (!call.started) return [];
      if (this.#tools.get(call.name)?.idempotent !== true)
        return [resultEvent(call, { status: "interrupted", content: CRASHED_CALL_CONTENT, durationMs: 0 })];
      if (call.attempt < MAX_TOOL_ATTEMPTS) return [];
      return [resultEvent(call, { status: "interrupted", content: abandonedCallContent(call.attempt), durationMs: 0 })];
    });
    if (events.length > 0) await this.#w.append(events);
  }

  /**
   * Whether a call runs now, is refused, needs an approval, or waits for one. An approved call
   * runs with the input parsed from the recorded canonical JSON, never the object the model gave;
   * an input a hook replaced is checked (and approved) like the model's own.
   */
  async #gate(original: OpenToolCall): Promise<Gate> {
    const state = this.#w.state;
    const approval = state.approvals.find((a) => a.callId === original.callId);
    if (approval !== undefined) {
      if (approval.decision === undefined) return { kind: "wait" };
      if (approval.decision === "deny") {
        const by = approval.actor === undefined ? "" : ` by ${speakerLabel(approval.actor)}`;
        return {
          kind: "deny",
          content: `The call was denied${by}.${approval.reason === undefined ? "" : ` Reason: ${approval.reason}`}`,
        };
      }
      return {
        kind: "run",
        call: { ...original, input: frozenFromJson(approval.inputJson) },
        frozen: true,
        replaced: true,
      };
    }
    // A call already started (an idempotent re-run) keeps the decisions made before it started.
    if (original.started) return { kind: "run", call: original, frozen: false, replaced: false };
    const decision = await this.#hooks.beforeTool(original);
    if (decision.action === "deny")
      return { kind: "deny", content: `The call was denied by a hook. Reason: ${decision.reason}` };
    const call = decision.action === "replace" ? { ...original, input: decision.input } : original;
    const replaced = decision.action === "replace";
    const asked = decision.action === "require_approval";
    const tool = this.#tools.get(call.name);
    if (tool === undefined) return { kind: "run", call, frozen: false, replaced };
    // The provenance policy comes first: no grant, approval rule or missing needsApproval turns it off.
    const verdict = this.#provenance.check(state, call, tool, await this.#step.blobs());
    if (verdict.rule === "deny") {
      const note: TaskEvent = {
        type: "engine_note",
        v: 1,
        kind: "provenance_denied",
        text: `The provenance policy refused call ${call.callId} of ${call.name} (${verdict.provenance.classification}).`,
        data: { callId: call.callId, ...verdict.provenance },
        legId: this.#legId,
      };
      return { kind: "deny", content: provenanceDeniedContent(verdict.provenance), note };
    }
    const held = verdict.rule === "approve" ? verdict.provenance : undefined;
    if (held === undefined && !asked && state.grantedTools.includes(call.name))
      return { kind: "run", call, frozen: false, replaced };
    const policy = this.#o.agent.approvalPolicy;
    if (held === undefined && !asked && tool.needsApproval === undefined && policy === undefined)
      return { kind: "run", call, frozen: false, replaced };
    // The checks see the validated input; input that fails its schema runs (and fails) without asking.
    const checked = await tool.inputSchema["~standard"].validate(call.input);
    if (checked.issues !== undefined) return { kind: "run", call, frozen: false, replaced };
    const context = { taskId: this.#ctx.taskId, callId: call.callId, principal: state.principal };
    const needs =
      held !== undefined ||
      asked ||
      tool.needsApproval === true ||
      (typeof tool.needsApproval === "function" && (await tool.needsApproval(checked.value, context))) ||
      (policy !== undefined && (await policy({ name: call.name, input: call.input }, context)));
    if (!needs) return { kind: "run", call, frozen: false, replaced };
    return { kind: "request", event: await approvalRequest(this.#legId, call.callId, call.name, call.input, held) };
  }

  /**
   * Decide and run `calls`. Each batch's `tool_call_started` events are appended with whatever is
   * pending (the turn that asked for them, decisions, the previous batch's results) in one
   * transaction, so a simple turn costs two appends; results go in as soon as their batch settles.
   */
  async run(calls: readonly OpenToolCall[], pending: TaskEvent[] = []): Promise<void> {
    let carry = [...pending];
    const delegated = delegateToolName(this.#ctx.agent);
    // Children spawned earlier in this same turn count against the limit before they are recorded.
    let spawned = 0;
    const toCreate: Array<{ callId: string; input: DelegateInput }> = [];
    const runnable: OpenToolCall[] = [];
    const frozen = new Set<string>();
    const replaced = new Set<string>();
    for (const call of calls) {
      // Run by whoever offered the tool, who records its result.
      if (waitsOutside(this.#ctx, call)) continue;
      if (call.name === delegated) {
        const events = await delegateCallEvents(this.#ctx, call, spawned, toCreate);
        spawned += events.filter((e) => e.type === "child_task" && e.phase === "spawned").length;
        carry.push(...events);
        continue;
      }
      const gate = await this.#gate(call);
      if (gate.kind === "run") {
        runnable.push(gate.call);
        if (gate.frozen) frozen.add(call.callId);
        if (gate.replaced && !gate.frozen) replaced.add(call.callId);
      } else if (gate.kind === "deny") {
        if (gate.note !== undefined) carry.push(gate.note);
        carry.push(resultEvent(call, { status: "denied", content: gate.content, durationMs: 0 }));
      } else if (gate.kind === "request") {
        carry.push(gate.event);
      }
    }
    // The turn's children split what is left of the budget, recorded on their spawns.
    reserveShares(this.#ctx, carry, toCreate);
    const signal = this.#step.signal();
    const settings = this.#settings();
    for (const batch of batchCalls(runnable, this.#tools)) {
      if (signal.aborted) {
        carry = [
          ...carry,
          ...batch.map((call) => resultEvent(call, { status: "interrupted", content: NOT_RUN_CONTENT, durationMs: 0 })),
        ];
        continue;
      }
      const started: TaskEvent[] = batch.map((call) => ({
        type: "tool_call_started",
        v: 1,
        legId: this.#legId,
        callId: call.callId,
        name: call.name,
        attempt: call.attempt + 1,
        ...(replaced.has(call.callId) ? { input: call.input } : {}),
      }));
      const stored = await this.#w.append([...carry, ...started]);
      if (this.#o.traceparentOf !== undefined || this.#o.onToolError !== undefined)
        for (const event of stored)
          if (event.type === "tool_call_started") this.#startedSeq.set(event.callId, event.seq);
      const outcomes = await this.#step.watched(() =>
        Promise.all(
          batch.map(async (call) => {
            const outcome = await executeCall(call, call.attempt + 1, signal, settings, frozen.has(call.callId));
            if (outcome.thrown !== undefined) this.#toolError(call, outcome.thrown.error);
            return this.#hooks.afterTool(call, outcome);
          }),
        ),
      );
      // A checkpoint still being written goes in before the result it led to.
      await this.#checkpoints;
      carry = batch.map((call, i) =>
        resultEvent(call, outcomes[i] ?? { status: "error", content: "no outcome", durationMs: 0 }),
      );
    }
    if (carry.length > 0) await this.#w.append(carry);
    // Children are created only once their parent has recorded them.
    const refused = await createChildren(this.#ctx, calls, toCreate);
    if (refused.length > 0) await this.#w.append(refused);
  }

  /** Append one `tool_checkpoint`, after any still being written; resolves once it is stored. */
  #checkpoint(call: OpenToolCall, data: JsonValue): Promise<void> {
    const event: TaskEvent = {
      type: "tool_checkpoint",
      v: 1,
      legId: this.#legId,
      callId: call.callId,
      name: call.name,
      data,
    };
    const appended = this.#checkpoints.then(() => this.#w.append([event]));
    // One failed append (a lost lease) fails its own caller, not the checkpoints after it.
    this.#checkpoints = appended.catch(() => undefined);
    return appended.then(() => undefined);
  }

  /** Tell the host's `onToolError` what a call threw; its own failure is ignored. */
  #toolError(call: OpenToolCall, error: unknown): void {
    const hook = this.#o.onToolError;
    const seq = this.#startedSeq.get(call.callId);
    if (hook === undefined || seq === undefined) return;
    try {
      hook(error, { taskId: this.#ctx.taskId, callId: call.callId, name: call.name, seq });
    } catch {
      // It observes only: a failing error hook loses its report, never the call's result.
    }
  }

  /** The call's `traceparent` from the host; tracing never fails a call, so any failure is none. */
  async #traceparent(
    of: NonNullable<HarnessOptions["traceparentOf"]>,
    call: OpenToolCall,
  ): Promise<string | undefined> {
    const seq = this.#startedSeq.get(call.callId);
    if (seq === undefined) return undefined;
    try {
      const value = await of({ taskId: this.#ctx.taskId, callId: call.callId, name: call.name, seq });
      return typeof value === "string" && value !== "" ? value : undefined;
    } catch {
      return undefined;
    }
  }

  #settings(): ToolRunSettings {
    const settings: ToolRunSettings = {
      tools: this.#tools,
      toolTimeoutMs: this.#o.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs,
      maxToolOutputChars: this.#o.maxToolOutputChars ?? DEFAULTS.maxToolOutputChars,
      taskId: this.#ctx.taskId,
      legId: this.#legId,
      principal: this.#w.state.principal,
      checkpoint: (call, data) => this.#checkpoint(call, data),
      clock: this.#ctx.clock,
      // A tool's own model call fits the task's budget as a turn's does (a quarantined reader's).
      fitModelCall: (request) => fitBudgetIn(this.#ctx, request)?.exceeded.text,
    };
    if (this.#o.randomBytes !== undefined) settings.randomBytes = this.#o.randomBytes;
    const traceparentOf = this.#o.traceparentOf;
    if (traceparentOf !== undefined) settings.traceparent = (call) => this.#traceparent(traceparentOf, call);
    return settings;
  }
}

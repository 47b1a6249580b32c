/**
 * The turn loop of one leg. At each step boundary it folds what others wrote, stops if asked
 * (cancel, interrupt, host abort), delivers waiting steers, calls the model, records the turn,
 * runs the tools, and goes round again until the agent finishes or the task parks.
 */

import { frozenFromJson } from "../core/canonical-json.ts";
import { type OpenToolCall, type PendingInput, type TaskState, waitingInputs } from "../core/fold.ts";
import { buildAppliedHumanInputEvent, speakerLabel } from "../core/human-input-projection.ts";
import { type DeliveryCarrier, renderInputs } from "../core/input-rendering.ts";
import { buildModelRequest, toolSpecs } from "../core/model-request.ts";
import type { ModelFailure, ToolSpec } from "../ports/model.ts";
import type { Tool } from "../ports/tool.ts";
import { LeaseLostError } from "../protocol/errors.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { DEFAULTS, type HarnessOptions } from "./agent.ts";
import { approvalRequest } from "./approvals.ts";
import { isStopSignal, watchForStops } from "./leg-guards.ts";
import type { LegWriter } from "./leg-writer.ts";
import { type CollectedTurn, streamModelTurn } from "./model-step.ts";
import { batchCalls, executeCall, NOT_RUN_CONTENT, resultEvent, type ToolRunSettings } from "./tool-runner.ts";

/**
 * A step still running after this long gets a watcher on the log, so a cancel, an interrupt or an
 * interrupting input from another process aborts it at once. Shorter steps need none: the leg
 * folds everything at the next boundary anyway, and an instant step pays no watching cost.
 */
export const WATCH_AFTER_MS = 5;

type Gate =
  | { kind: "run"; call: OpenToolCall; frozen: boolean }
  | { kind: "deny"; content: string }
  | { kind: "request"; event: TaskEvent }
  | { kind: "wait" };

/** What the model is told about a non-idempotent call that was running when its host died. */
export const CRASHED_CALL_CONTENT =
  "The process running this tool call stopped before it recorded a result; the call's effect is unknown. It was not run again. Check its effect before relying on it or repeating it.";

export class LegLoop {
  readonly #o: HarnessOptions;
  readonly #w: LegWriter;
  readonly #legId: string;
  readonly #host: AbortSignal | undefined;
  readonly #lost: AbortSignal;
  readonly #tools: ReadonlyMap<string, Tool>;
  readonly #specs: ToolSpec[];
  #step = new AbortController();
  #watchTimer: ReturnType<typeof setTimeout> | undefined;
  #inStep = false;
  #stopWatch: (() => void) | undefined;
  #interrupt = false;

  constructor(
    options: HarnessOptions,
    writer: LegWriter,
    legId: string,
    host: AbortSignal | undefined,
    lost: AbortSignal,
  ) {
    this.#o = options;
    this.#w = writer;
    this.#legId = legId;
    this.#host = host;
    this.#lost = lost;
    const tools = options.agent.tools ?? [];
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.#specs = toolSpecs(tools);
    writer.onForeign = (event) => {
      if (event.type === "engine_note" && event.kind === "interrupt_requested") this.#interrupt = true;
    };
  }

  /** Abort the current step for a stop signal the leg has not folded yet (from the watcher). */
  stopSignal(event: StoredEvent): void {
    if (event.seq > this.#w.state.lastSeq && isStopSignal(event, this.#legId)) this.#step.abort();
  }

  /** Abort the current step (host abort, lost lease). */
  abortStep(): void {
    this.#step.abort();
  }

  /** Run one step (a model call, a batch of tools) with a watcher armed if it takes a while. */
  async #watched<T>(work: () => Promise<T>): Promise<T> {
    this.#w.markStale();
    // One timer per leg, re-armed per step: cheaper than a new timeout for every step.
    this.#watchTimer ??= setTimeout(() => {
      if (this.#inStep && this.#stopWatch === undefined) {
        this.#stopWatch = watchForStops(this.#w.store, this.#w.taskId, this.#w.state.lastSeq, (event) =>
          this.stopSignal(event),
        );
      }
    }, WATCH_AFTER_MS);
    this.#watchTimer.refresh();
    this.#inStep = true;
    try {
      return await work();
    } finally {
      this.#inStep = false;
      this.#stopWatch?.();
      this.#stopWatch = undefined;
    }
  }

  /** Stop the leg's timers (the leg is over). */
  dispose(): void {
    if (this.#watchTimer !== undefined) clearTimeout(this.#watchTimer);
    this.#stopWatch?.();
  }

  #stepSignal(): AbortSignal {
    if (this.#step.signal.aborted) this.#step = new AbortController();
    if (this.#host?.aborted === true || this.#lost.aborted) this.#step.abort();
    return this.#step.signal;
  }

  async run(): Promise<void> {
    const w = this.#w;
    await this.#recoverInDoubt();
    await this.#runCalls(w.state.openToolCalls);
    if (await this.#parkForApprovals()) return;
    for (const carrier of ["objective", "resume", "wake"] as const) await this.#deliver(carrier);
    for (;;) {
      await w.refreshIfStale();
      if (await this.#stopIfAsked()) return;
      await this.#deliver("steer");
      // The agent has answered without tool calls (maybe in a leg that then died): it would finish.
      const last = w.state.transcript.at(-1);
      if (last?.role === "assistant" && last.toolCalls.length === 0) {
        if (await this.#finish(last.text)) return;
        continue;
      }
      if (await this.#parkIfOverBudget()) return;
      const step = await this.#modelStep();
      if (step === "stopped") continue;
      if (step === "failed") return;
      const calls = step.turn.toolCalls.map((call) => ({ ...call, started: false, attempt: 0, legId: this.#legId }));
      await this.#runCalls(calls, [step.event]);
      if (await this.#parkForApprovals()) return;
      await w.maybeSnapshot();
    }
  }

  async #end(
    reason: "cancelled" | "parked:interrupt" | "parked:budget" | "parked:approval",
    note?: TaskEvent,
  ): Promise<void> {
    await this.#w.appendWhen((state) =>
      state.summary.legId !== this.#legId
        ? undefined
        : [...(note === undefined ? [] : [note]), { type: "leg_ended", v: 1, legId: this.#legId, reason }],
    );
  }

  /** Cancel, interrupt or a host abort end the leg here; a lost lease ends it with an error. */
  async #stopIfAsked(): Promise<boolean> {
    if (this.#lost.aborted) throw new LeaseLostError(this.#w.taskId);
    if (this.#w.state.summary.status === "cancelled") {
      await this.#end("cancelled");
      return true;
    }
    if (this.#interrupt || this.#host?.aborted === true) {
      await this.#end("parked:interrupt");
      return true;
    }
    return false;
  }

  /** Calls wait for decisions: park; the leg that resumes after the last decision runs them. */
  async #parkForApprovals(): Promise<boolean> {
    if (!this.#w.state.approvals.some((a) => a.decision === undefined)) return false;
    await this.#end("parked:approval");
    return true;
  }

  async #parkIfOverBudget(): Promise<boolean> {
    const max = this.#o.agent.maxTurns;
    if (max === undefined || this.#w.state.summary.sessionSeq < max) return false;
    await this.#end("parked:budget", {
      type: "engine_note",
      v: 1,
      kind: "budget",
      text: `The task reached its limit of ${max} model turns.`,
      legId: this.#legId,
    });
    return true;
  }

  /** The events that apply `inputs` on `carrier`: one `applied` each, then the entry with their exact bytes. */
  #deliveryEvents(carrier: DeliveryCarrier, inputs: PendingInput[], state: TaskState): TaskEvent[] {
    const events: TaskEvent[] = inputs.map((input) =>
      buildAppliedHumanInputEvent({
        carrier,
        source: input.source,
        sessionSeq: state.summary.sessionSeq,
        inputId: input.inputId,
        actor: input.actor,
        principal: state.principal,
      }),
    );
    const content = renderInputs(inputs, carrier, this.#o.randomBytes);
    // Derived from the inputs (each applied once), so a leg resumed from the same log writes the same entry.
    const entryId = `entry:${inputs[0]?.inputId ?? ""}`;
    events.push({ type: "user_message", v: 1, entryId, content, inputIds: inputs.map((i) => i.inputId) });
    return events;
  }

  async #deliver(carrier: "objective" | "resume" | "wake" | "steer"): Promise<void> {
    await this.#w.appendWhen((state) => {
      const inputs = waitingInputs(state)[carrier];
      return inputs.length === 0 ? undefined : this.#deliveryEvents(carrier, inputs, state);
    });
  }

  /** The agent would finish: a pending steer or a queued follow-up sends it back to work. */
  async #finish(text: string): Promise<boolean> {
    let done = false;
    await this.#w.appendWhen((state) => {
      const waiting = waitingInputs(state);
      done = false;
      if (waiting.steer.length > 0) return undefined;
      if (waiting.nextTurn.length > 0) return this.#deliveryEvents("nextTurn", waiting.nextTurn, state);
      done = true;
      return [
        { type: "task_completed", v: 1, result: text },
        { type: "leg_ended", v: 1, legId: this.#legId, reason: "completed" },
      ];
    });
    return done;
  }

  async #fail(failure: ModelFailure): Promise<void> {
    const where = failure.status === undefined ? failure.code : `${failure.code}, HTTP ${failure.status}`;
    await this.#w.append([
      { type: "task_failed", v: 1, error: { code: "ModelError", message: `${failure.message} (${where})` } },
      { type: "leg_ended", v: 1, legId: this.#legId, reason: "failed" },
    ]);
  }

  /** Call the model; the recorded turn is returned to be appended with what follows it. */
  async #modelStep(): Promise<{ turn: CollectedTurn; event: TaskEvent } | "stopped" | "failed"> {
    const signal = this.#stepSignal();
    if (signal.aborted) return "stopped";
    const state = this.#w.state;
    const { agent } = this.#o;
    const settings = { tools: agent.tools ?? [], ...pick(agent) };
    const result = await this.#watched(() =>
      streamModelTurn({
        model: agent.model,
        request: buildModelRequest(state, settings, this.#specs),
        signal,
        emit: this.#o.emit ?? (() => {}),
        taskId: this.#w.taskId,
        legId: this.#legId,
        takenCallIds: new Set(state.openToolCalls.map((c) => c.callId)),
        onRetry: async (part) => {
          const f = part.failure;
          await this.#w.append([
            {
              type: "engine_note",
              v: 1,
              kind: "model_retry",
              text: `${f.message} (${f.code}); retry ${part.attempt} in ${part.delayMs} ms`,
              data: {
                attempt: part.attempt,
                delayMs: part.delayMs,
                code: f.code,
                ...(f.status === undefined ? {} : { status: f.status }),
              },
              legId: this.#legId,
            },
          ]);
        },
      }),
    );
    if (!result.ok) {
      if (signal.aborted) return "stopped";
      await this.#fail(result.failure);
      return "failed";
    }
    const { turn } = result;
    const event: TaskEvent = {
      type: "model_turn",
      v: 1,
      legId: this.#legId,
      sessionSeq: this.#w.state.summary.sessionSeq + 1,
      text: turn.text,
      toolCalls: turn.toolCalls,
      usage: turn.usage,
      finishReason: turn.finishReason,
    };
    // The task records its model; a turn names one only when it differs (a resume with another model).
    if (agent.model.id !== this.#w.state.model) event.model = agent.model.id;
    if (turn.reasoning !== undefined) event.reasoning = turn.reasoning;
    return { turn, event };
  }

  /** Calls started by a leg that died: an idempotent tool runs again; any other is answered "unknown". */
  async #recoverInDoubt(): Promise<void> {
    const inDoubt = this.#w.state.openToolCalls.filter(
      (call) => call.started && this.#tools.get(call.name)?.idempotent !== true,
    );
    if (inDoubt.length === 0) return;
    await this.#w.append(
      inDoubt.map((call) => resultEvent(call, { status: "interrupted", content: CRASHED_CALL_CONTENT, durationMs: 0 })),
    );
  }

  /**
   * Run calls batch by batch. Each batch's `tool_call_started` events are appended with whatever
   * is pending (the turn that asked for them, the previous batch's results) in one transaction, so
   * a turn costs two appends, not three; results are appended as soon as their batch settles.
   */
  /**
   * Whether a call runs now, is refused, needs an approval, or waits for one. An approved call
   * runs with the input parsed from the recorded canonical JSON, never the object the model gave.
   */
  async #gate(call: OpenToolCall): Promise<Gate> {
    const state = this.#w.state;
    const approval = state.approvals.find((a) => a.callId === call.callId);
    if (approval !== undefined) {
      if (approval.decision === undefined) return { kind: "wait" };
      if (approval.decision === "deny") {
        const by = approval.actor === undefined ? "" : ` by ${speakerLabel(approval.actor)}`;
        return {
          kind: "deny",
          content: `The call was denied${by}.${approval.reason === undefined ? "" : ` Reason: ${approval.reason}`}`,
        };
      }
      return { kind: "run", call: { ...call, input: frozenFromJson(approval.inputJson) }, frozen: true };
    }
    const tool = this.#tools.get(call.name);
    if (tool === undefined || state.grantedTools.includes(call.name)) return { kind: "run", call, frozen: false };
    const policy = this.#o.agent.approvalPolicy;
    if (tool.needsApproval === undefined && policy === undefined) return { kind: "run", call, frozen: false };
    // The checks see the validated input; input that fails its schema runs (and fails) without asking.
    const checked = await tool.inputSchema["~standard"].validate(call.input);
    if (checked.issues !== undefined) return { kind: "run", call, frozen: false };
    const context = { taskId: this.#w.taskId, callId: call.callId, principal: state.principal };
    const needs =
      tool.needsApproval === true ||
      (typeof tool.needsApproval === "function" && (await tool.needsApproval(checked.value, context))) ||
      (policy !== undefined && (await policy({ name: call.name, input: call.input }, context)));
    if (!needs) return { kind: "run", call, frozen: false };
    return { kind: "request", event: approvalRequest(this.#legId, call.callId, call.name, call.input) };
  }

  async #runCalls(calls: readonly OpenToolCall[], pending: TaskEvent[] = []): Promise<void> {
    if (calls.length === 0) {
      if (pending.length > 0) await this.#w.append(pending);
      return;
    }
    const signal = this.#stepSignal();
    const settings: ToolRunSettings = {
      tools: this.#tools,
      toolTimeoutMs: this.#o.toolTimeoutMs ?? DEFAULTS.toolTimeoutMs,
      maxToolOutputChars: this.#o.maxToolOutputChars ?? DEFAULTS.maxToolOutputChars,
      taskId: this.#w.taskId,
      legId: this.#legId,
      principal: this.#w.state.principal,
    };
    if (this.#o.randomBytes !== undefined) settings.randomBytes = this.#o.randomBytes;
    let carry = [...pending];
    const runnable: OpenToolCall[] = [];
    const frozen = new Set<string>();
    for (const call of calls) {
      const gate = await this.#gate(call);
      if (gate.kind === "run") {
        runnable.push(gate.call);
        if (gate.frozen) frozen.add(call.callId);
      } else if (gate.kind === "deny") {
        carry.push(resultEvent(call, { status: "denied", content: gate.content, durationMs: 0 }));
      } else if (gate.kind === "request") {
        carry.push(gate.event);
      }
    }
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
      }));
      await this.#w.append([...carry, ...started]);
      const outcomes = await this.#watched(() =>
        Promise.all(
          batch.map((call) => executeCall(call, call.attempt + 1, signal, settings, frozen.has(call.callId))),
        ),
      );
      carry = batch.map((call, i) =>
        resultEvent(call, outcomes[i] ?? { status: "error", content: "no outcome", durationMs: 0 }),
      );
    }
    if (carry.length > 0) await this.#w.append(carry);
  }
}

function pick(agent: HarnessOptions["agent"]): {
  instructions?: string;
  maxOutputTokens?: number;
  temperature?: number;
} {
  const out: { instructions?: string; maxOutputTokens?: number; temperature?: number } = {};
  if (agent.instructions !== undefined) out.instructions = agent.instructions;
  if (agent.maxOutputTokens !== undefined) out.maxOutputTokens = agent.maxOutputTokens;
  if (agent.temperature !== undefined) out.temperature = agent.temperature;
  return out;
}

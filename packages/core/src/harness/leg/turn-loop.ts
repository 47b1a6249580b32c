/**
 * The turn loop of one leg. At each step boundary it folds what others wrote, stops if asked
 * (cancel, interrupt, host abort), delivers waiting steers, calls the model, records the turn,
 * runs the tools, and goes round again until the agent finishes or the task parks.
 */

import type { PendingInput, TaskState } from "../../core/fold.ts";
import { deliveryEvents, dueTimerInputs } from "../../core/input-delivery.ts";
import type { DeliveryCarrier } from "../../core/input-rendering.ts";
import { modelWaitRetirements, quotaWaitId } from "../../core/model-wait.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";
import { abortCheaply } from "../../internal/abort.ts";
import type { ModelFailure, ModelRequest, ToolSpec } from "../../ports/model.ts";
import { isSemaError, LeaseLostError, type SemaErrorCode } from "../../protocol/errors.ts";
import type { ExternalTool, StoredEvent, TaskEvent } from "../../protocol/task-event.ts";
import type { HarnessOptions } from "../agent.ts";
import { type Budget, type BudgetLimit, effectiveBudget, exceededLimit } from "../budget/budget.ts";
import { headroom } from "../budget/budget-ledger.ts";
import { estimateInputTokens, fitCall } from "../budget/call-fit.ts";
import { delegateSpec } from "../delegation/delegate-tool.ts";
import { type HookFailure, LegHooks } from "../hooks/hook-runner.ts";
import { compactionCut, shouldCompact, summarize } from "../model/compaction.ts";
import {
  buildModelRequest,
  RequestBlobs,
  type RequestContent,
  type RequestSettings,
  requestSettings,
  toolChoiceProblem,
  toolSpecs,
} from "../model/model-request.ts";
import { describeFailure, modelParkEvents } from "../model/model-unavailable.ts";
import { type CollectedTurn, retryNote, streamModelTurn } from "../model/stream-turn.ts";
import type { QuotaGate } from "../quota/quota-gate.ts";
import type { QuotaVerdict } from "../quota/quotas.ts";
import { ToolPhase, waitsOutside } from "../tools/tool-phase.ts";
import type { LegWriter } from "./event-writer.ts";
import { type FinishingLeg, finishTask } from "./finish-task.ts";
import type { LegContext, LegSignals } from "./leg-context.ts";
import { OPENING_CARRIERS } from "./opening-deliveries.ts";
import { StepWatch } from "./step-watch.ts";
import { isStopSignal, watchForStops } from "./stop-signals.ts";

const NO_IDS: ReadonlySet<string> = new Set();

export class LegLoop {
  readonly #ctx: LegContext;
  readonly #o: HarnessOptions;
  readonly #w: LegWriter;
  readonly #legId: string;
  readonly #signals: LegSignals;
  readonly #specs: ToolSpec[];
  /** The agent's specs plus the task's external tools, for the list they were built from. */
  #withExternal: { from: readonly ExternalTool[]; specs: ToolSpec[] } | undefined;
  /** What the model request needs from the agent, built once per leg. */
  readonly #settings: RequestSettings;
  readonly #hooks: LegHooks;
  readonly #toolPhase: ToolPhase;
  /** The bytes of the attachments the transcript references, read once per leg. */
  readonly #blobs: RequestBlobs;
  #step = new AbortController();
  readonly #watch: StepWatch;

  constructor(ctx: LegContext) {
    this.#ctx = ctx;
    this.#o = ctx.options;
    this.#w = ctx.writer;
    this.#legId = ctx.legId;
    this.#signals = ctx.signals;
    const tools = ctx.agent.tools ?? [];
    const delegation = ctx.agent.delegation;
    this.#specs = delegation === undefined ? toolSpecs(tools) : [...toolSpecs(tools), delegateSpec(delegation)];
    this.#settings = requestSettings(ctx.agent, tools);
    this.#hooks = new LegHooks(ctx);
    this.#blobs = new RequestBlobs(ctx.store);
    this.#toolPhase = new ToolPhase(ctx, this.#hooks, {
      signal: () => this.#stepSignal(),
      blobs: () => this.#gateBlobs(),
      watched: (work) => this.#watched(work),
    });
    this.#watch = new StepWatch(() =>
      watchForStops(ctx.store, ctx.taskId, ctx.writer.state.lastSeq, (event) => this.stopSignal(event)),
    );
  }

  /** Abort the current step for a stop signal the leg has not folded yet (from the watcher). */
  stopSignal(event: StoredEvent): void {
    if (event.seq > this.#w.state.lastSeq && isStopSignal(event, this.#legId)) abortCheaply(this.#step);
  }

  /** Abort the current step (host abort, lost lease). */
  abortStep(): void {
    abortCheaply(this.#step);
  }

  /** Run one step (a model call, a batch of tools) with a watcher armed if it takes a while. */
  #watched<T>(work: () => Promise<T>): Promise<T> {
    this.#w.markStale();
    return this.#watch.run(work);
  }

  /** Stop the leg's timers (the leg is over). */
  dispose(): void {
    this.#watch.dispose();
  }

  #stepSignal(): AbortSignal {
    if (this.#step.signal.aborted) this.#step = new AbortController();
    const { host, shutdown, lost } = this.#signals;
    if (host?.aborted === true || shutdown?.aborted === true || lost.aborted) abortCheaply(this.#step);
    return this.#step.signal;
  }

  async run(): Promise<void> {
    const w = this.#w;
    // This leg asks the model anyway: a model park's timer must not start another leg later.
    if (w.state.timers.length > 0) await this.#retireModelWaits();
    await this.#toolPhase.recoverInDoubt();
    await this.#toolPhase.run(w.state.openToolCalls);
    if (await this.#parkForApprovals()) return;
    if (await this.#awaitChildren()) return;
    if (await this.#parkForExternal()) return;
    await this.#fireTimers("parked");
    // Usually delivered with leg_started already (opening-deliveries.ts): then nothing waits here.
    if (w.state.inputs.length > 0) for (const carrier of OPENING_CARRIERS) await this.#deliver(carrier);
    // Each step below is awaited only when the state says it has work: an instant turn pays for
    // no promise it does not need.
    for (;;) {
      if (w.stale) await w.refresh();
      const stop = this.#stopReason();
      if (stop !== undefined) {
        await this.#end(stop);
        return;
      }
      // A timer due while the leg runs is delivered like a wake sent now: as a steer.
      if (w.state.timers.length > 0) await this.#fireTimers("received");
      if (w.state.inputs.length > 0) await this.#deliver("steer");
      // The agent has answered without tool calls (maybe in a leg that then died): it would finish.
      const last = w.state.transcript.at(-1);
      if (last?.role === "assistant" && last.toolCalls.length === 0) {
        if (await finishTask(this.#finishing(), last.text)) return;
        continue;
      }
      if (await this.#parkIfOverBudget()) return;
      if (this.#o.agent.compaction !== undefined) await this.#compactIfNeeded();
      const step = await this.#modelStep();
      if (step === "stopped") continue;
      if (step === "failed") return;
      // A final answer goes in with the task's completion, when nothing else comes first.
      if (step.turn.toolCalls.length === 0) {
        if (await finishTask(this.#finishing(), step.turn.text, step.event)) return;
        continue;
      }
      const calls = step.turn.toolCalls.map((call) => ({ ...call, started: false, attempt: 0, legId: this.#legId }));
      await this.#toolPhase.run(calls, [step.event]);
      if (w.state.approvals.length > 0 && (await this.#parkForApprovals())) return;
      if (this.#o.agent.delegation !== undefined && (await this.#awaitChildren())) return;
      if (w.state.externalTools !== undefined && (await this.#parkForExternal())) return;
      if (w.snapshotDue()) await w.maybeSnapshot();
    }
  }

  async #end(
    reason: "cancelled" | "parked:interrupt" | "parked:budget" | "parked:approval" | "parked:child" | "parked:shutdown",
    note?: TaskEvent,
    detail?: string,
  ): Promise<void> {
    await this.#w.appendWhen((state) => {
      if (state.summary.legId !== this.#legId) return undefined;
      const ended: TaskEvent = { type: "leg_ended", v: 1, legId: this.#legId, reason };
      if (detail !== undefined) ended.detail = detail;
      return note === undefined ? [ended] : [note, ended];
    });
  }

  /**
   * Why the leg must end now, if it must: a cancel, a graceful shutdown, an interrupt or a host
   * abort. A lost lease ends it with an error instead. Synchronous: asked at every boundary.
   */
  #stopReason(): "cancelled" | "parked:shutdown" | "parked:interrupt" | undefined {
    const { host, shutdown, lost } = this.#signals;
    if (lost.aborted) throw new LeaseLostError(this.#ctx.taskId);
    if (this.#w.state.summary.status === "cancelled") return "cancelled";
    if (shutdown?.aborted === true) return "parked:shutdown";
    if (this.#ctx.foreign.requested || host?.aborted === true) return "parked:interrupt";
    return undefined;
  }

  /**
   * Delegate calls wait for their children. With runChildren (the default) the children run here,
   * each in its own legs, and their answers go to the waiting calls; a child that parks (an
   * approval, a budget) parks this task too (`parked:child`) until its result arrives.
   */
  async #awaitChildren(): Promise<boolean> {
    const settings = this.#o.agent.delegation;
    if (settings === undefined) return false;
    const waiting = () =>
      this.#w.state.openToolCalls.filter((call) =>
        this.#w.state.children.some((c) => c.callId === call.callId && c.status === "running"),
      );
    if (waiting().length === 0) return false;
    if (settings.runChildren !== false) {
      for (const call of waiting()) {
        const child = this.#w.state.children.find((c) => c.callId === call.callId);
        if (child === undefined) continue;
        await this.#ctx.runChild(child.childTaskId);
      }
      await this.#w.refresh();
      await this.#toolPhase.run(
        this.#w.state.openToolCalls.filter((call) => this.#w.state.children.some((c) => c.callId === call.callId)),
      );
      if (waiting().length === 0) return false;
    }
    await this.#end("parked:child");
    return true;
  }

  /** Summarize older turns when the last prompt neared the window; a failed summary changes nothing. */
  async #compactIfNeeded(): Promise<void> {
    const settings = this.#o.agent.compaction;
    if (settings === undefined || !shouldCompact(this.#w.state, settings)) return;
    const throughSeq = compactionCut(this.#w.state, settings.keepRecentTurns ?? 4);
    if (throughSeq === undefined) return;
    const result = await this.#watched(() =>
      summarize(settings.model ?? this.#o.agent.model, this.#w.state, throughSeq, {
        taskId: this.#ctx.taskId,
        legId: this.#legId,
        signal: this.#stepSignal(),
      }),
    );
    if ("event" in result) {
      await this.#w.append([result.event]);
      return;
    }
    await this.#w.append([
      {
        type: "engine_note",
        v: 1,
        kind: "compaction_failed",
        text: `Compaction failed: ${result.failure}; the full history is kept.`,
        legId: this.#legId,
      },
    ]);
  }

  /** Calls wait for decisions: park; the leg that resumes after the last decision runs them. */
  async #parkForApprovals(): Promise<boolean> {
    if (!this.#w.state.approvals.some((a) => a.decision === undefined)) return false;
    await this.#end("parked:approval");
    return true;
  }

  /**
   * Calls to external tools wait for results from outside: park until the last one is recorded.
   * Decided again on a conflict: a result that arrived meanwhile lets the leg go on instead (it
   * would otherwise park with nothing left to wake it).
   */
  async #parkForExternal(): Promise<boolean> {
    const waiting = () => this.#w.state.openToolCalls.some((call) => waitsOutside(this.#ctx, call));
    if (!waiting()) return false;
    let over = false;
    await this.#w.appendWhen((state) => {
      over = state.summary.legId !== this.#legId;
      if (over || !waiting()) return undefined;
      over = true;
      return [{ type: "leg_ended", v: 1, legId: this.#legId, reason: "parked:tool" }];
    });
    return over;
  }

  /**
   * What the model is offered: the agent's tools, then the task's external tools whose names the
   * agent does not use (its own tool of a name wins).
   */
  #specsFor(state: TaskState): ToolSpec[] {
    const external = state.externalTools;
    if (external === undefined) return this.#specs;
    if (this.#withExternal?.from !== external) {
      const taken = new Set(this.#specs.map((spec) => spec.name));
      const added = external
        .filter((tool) => !taken.has(tool.name))
        .map((tool) => ({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema }));
      this.#withExternal = { from: external, specs: [...this.#specs, ...added] };
    }
    return this.#withExternal.specs;
  }

  /** A limit reached parks the task (or fails it, as configured) before the next model call. */
  async #parkIfOverBudget(): Promise<boolean> {
    const { agent } = this.#o;
    const budget = effectiveBudget(agent.budget, this.#w.state);
    const exceeded = exceededLimit(this.#w.state, budget, agent.model.id, this.#ctx.clock());
    if (exceeded === undefined) return false;
    await this.#endForBudget(budget, exceeded);
    return true;
  }

  /** Park (or fail, as configured) at a budget limit, with the note that names it. */
  async #endForBudget(budget: Budget, exceeded: { limit: BudgetLimit; text: string }): Promise<void> {
    const note: TaskEvent = {
      type: "engine_note",
      v: 1,
      kind: "budget",
      text: exceeded.text,
      data: { limit: exceeded.limit },
      legId: this.#legId,
    };
    if (budget.onExceeded === "fail") {
      await this.#w.append([
        note,
        { type: "task_failed", v: 1, error: { code: "BudgetExceeded", message: exceeded.text } },
        { type: "leg_ended", v: 1, legId: this.#legId, reason: "failed" },
      ]);
    } else {
      await this.#end("parked:budget", note, exceeded.limit);
    }
  }

  /**
   * Clamp the call's `maxOutputTokens` to what is left of the budget once its input (estimated) is
   * paid for; the limit it would cross when it cannot fit at all, for the leg to park first.
   * Synchronous: a call within budget awaits nothing more.
   */
  #fitBudget(request: ModelRequest): { budget: Budget; exceeded: { limit: BudgetLimit; text: string } } | undefined {
    const { agent } = this.#o;
    const state = this.#w.state;
    const budget = effectiveBudget(agent.budget, state);
    if (budget.maxTokens === undefined && budget.maxCostUsd === undefined) return undefined;
    const room = headroom(state, budget, agent.model.id, this.#ctx.clock());
    const fit = fitCall(room, request, estimateInputTokens(request, state.lastPromptTokens), budget, agent.model.id);
    if (!fit.fits) return { budget, exceeded: fit };
    if (fit.maxOutputTokens !== undefined) request.maxOutputTokens = fit.maxOutputTokens;
    return undefined;
  }

  /**
   * Ask the host's quota gate about the call; at a quota, park with the note that names it and a
   * silent timer at the window's edge, in the append that ends the leg (as a model park does).
   */
  async #parkForQuota(gate: QuotaGate, request: ModelRequest): Promise<boolean> {
    const state = this.#w.state;
    const verdict = await gate.check({
      principal: state.principal,
      taskId: this.#ctx.taskId,
      modelId: this.#o.agent.model.id,
      inputTokens: estimateInputTokens(request, state.lastPromptTokens),
    });
    if (verdict === undefined) return false;
    await this.#w.appendWhen((current) => {
      if (current.summary.legId !== this.#legId) return undefined;
      if (current.summary.status === "cancelled")
        return [{ type: "leg_ended", v: 1, legId: this.#legId, reason: "cancelled" }];
      return [
        ...quotaParkEvents(verdict, this.#legId),
        { type: "leg_ended", v: 1, legId: this.#legId, reason: "parked:quota", detail: verdict.quota },
      ];
    });
    return true;
  }

  /** Retire the timers of earlier model parks (see `core/model-wait.ts`). */
  async #retireModelWaits(): Promise<void> {
    await this.#w.appendWhen((state) => {
      const events = modelWaitRetirements(state);
      return events.length === 0 ? undefined : events;
    });
  }

  /**
   * The model stayed unavailable: park with a timer due after the backoff, both in the append that
   * ends the leg, so a crash cannot leave a park that never wakes. Nothing of the turn was
   * recorded, so the next leg asks the same turn again; the tools before it have their results.
   */
  async #parkForModel(failure: ModelFailure): Promise<void> {
    const { agent } = this.#o;
    await this.#w.appendWhen((state) => {
      if (state.summary.legId !== this.#legId) return undefined;
      // Cancelled while the model failed: the leg ends as cancelled, with no timer to wake it.
      if (state.summary.status === "cancelled")
        return [{ type: "leg_ended", v: 1, legId: this.#legId, reason: "cancelled" }];
      const park = modelParkEvents({
        failure,
        parks: (state.modelParks ?? 0) + 1,
        legId: this.#legId,
        nowMs: this.#ctx.clock(),
        backoff: agent.modelBackoff,
      });
      return [...park, { type: "leg_ended", v: 1, legId: this.#legId, reason: "parked:model", detail: failure.code }];
    });
  }

  /** Turn due timers into wake inputs (the input takes the timer's id, which retires it). */
  async #fireTimers(delivery: "parked" | "received"): Promise<void> {
    if (this.#w.state.timers.length === 0) return;
    await this.#w.appendWhen((state) => {
      const events = dueTimerInputs(state, this.#ctx.clock(), delivery, this.#legId);
      return events.length === 0 ? undefined : events;
    });
  }

  #deliveryEvents(carrier: DeliveryCarrier, inputs: PendingInput[], state: TaskState): TaskEvent[] {
    return deliveryEvents(carrier, inputs, state, this.#o.randomBytes);
  }

  /** What finishing the task needs of this leg. */
  #finishing(): FinishingLeg {
    return {
      writer: this.#w,
      legId: this.#legId,
      options: this.#o,
      hooks: this.#hooks,
      deliveryEvents: (carrier, inputs, state) => this.#deliveryEvents(carrier, inputs, state),
      failTask: (code, message) => this.#failTask(code, message),
      failHook: (failure) => this.#failHook(failure),
      loopFirst: (state) => this.#stopReason() !== undefined || state.timers.length > 0,
    };
  }

  async #deliver(carrier: "objective" | "resume" | "wake" | "steer"): Promise<void> {
    await this.#w.appendWhen((state) => {
      const inputs = waitingInputs(state)[carrier];
      return inputs.length === 0 ? undefined : this.#deliveryEvents(carrier, inputs, state);
    });
  }

  /** The task fails and the leg ends, in one append. */
  async #failTask(code: SemaErrorCode, message: string): Promise<void> {
    await this.#w.append([
      { type: "task_failed", v: 1, error: { code, message } },
      { type: "leg_ended", v: 1, legId: this.#legId, reason: "failed" },
    ]);
  }

  async #failHook(failure: HookFailure): Promise<void> {
    await this.#failTask("HookFailed", `the ${failure.hook} hook failed: ${failure.message}`);
  }

  async #fail(failure: ModelFailure): Promise<void> {
    await this.#failTask("ModelError", describeFailure(failure));
  }

  /**
   * The blobs the next request references. A blob the store lacks fails the task (`BlobNotFound`):
   * the request the log describes cannot be built, and retrying will not build it.
   */
  async #requestBlobs(): Promise<RequestContent | "failed"> {
    try {
      return await this.#blobs.resolve(this.#w.state.transcript);
    } catch (error) {
      if (!isSemaError(error, "BlobNotFound")) throw error;
      await this.#failTask(error.code, error.message);
      return "failed";
    }
  }

  /**
   * The blobs of the transcript for the provenance gate: those the last request carried, or read
   * now (a call recovered in a fresh leg). A blob the store lacks is left out: the gate then counts
   * its attachment as opaque, which holds more, never less.
   */
  async #gateBlobs(): Promise<ReadonlyMap<string, Uint8Array>> {
    const transcript = this.#w.state.transcript;
    const content = this.#blobs.current(transcript) ?? (await this.#blobs.resolve(transcript).catch(() => undefined));
    return content?.blobs ?? new Map();
  }

  /** Call the model; the recorded turn is returned to be appended with what follows it. */
  async #modelStep(): Promise<{ turn: CollectedTurn; event: TaskEvent } | "stopped" | "failed"> {
    const signal = this.#stepSignal();
    if (signal.aborted) return "stopped";
    const { agent } = this.#o;
    const settings = this.#settings;
    // Synchronous when no entry was added since the last request (an instant turn awaits nothing more).
    const content = this.#blobs.current(this.#w.state.transcript) ?? (await this.#requestBlobs());
    if (content === "failed") return "failed";
    const hookFailure = await this.#hooks.beforeModel(() =>
      buildModelRequest(this.#w.state, settings, this.#specsFor(this.#w.state), content),
    );
    if (hookFailure !== undefined) {
      await this.#failHook(hookFailure);
      return "failed";
    }
    const state = this.#w.state;
    // A hook's feedback adds no attachments: the blobs resolved before the hook are all there are.
    const request = buildModelRequest(state, settings, this.#specsFor(state), content);
    const problem = toolChoiceProblem(request);
    if (problem !== undefined) {
      await this.#failTask("InvalidInput", problem);
      return "failed";
    }
    const over = this.#fitBudget(request);
    if (over !== undefined) {
      await this.#endForBudget(over.budget, over.exceeded);
      return "failed";
    }
    if (this.#o.quota !== undefined && (await this.#parkForQuota(this.#o.quota, request))) return "failed";
    const result = await this.#watched(() =>
      streamModelTurn({
        model: agent.model,
        request,
        signal,
        emit: this.#o.emit,
        taskId: this.#ctx.taskId,
        legId: this.#legId,
        takenCallIds: state.openToolCalls.length === 0 ? NO_IDS : new Set(state.openToolCalls.map((c) => c.callId)),
        onRetry: async (part) => {
          await this.#w.append([retryNote(part, this.#legId)]);
        },
      }),
    );
    if (!result.ok) {
      if (signal.aborted) return "stopped";
      const { failure } = result;
      if (failure.isRetryable && (agent.onModelUnavailable ?? "park") === "park") await this.#parkForModel(failure);
      else await this.#fail(failure);
      return "failed";
    }
    const { turn } = result;
    const afterFailure = await this.#hooks.afterModel(turn.text, turn.toolCalls);
    if (afterFailure !== undefined) {
      await this.#failHook(afterFailure);
      return "failed";
    }
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
}

/** The note of a quota park and, when the window will allow the call, its silent timer. */
function quotaParkEvents(verdict: QuotaVerdict, legId: string): TaskEvent[] {
  const data: Record<string, string> = { quota: verdict.quota };
  const events: TaskEvent[] = [];
  if (verdict.retryAtMs !== undefined) {
    const due = new Date(verdict.retryAtMs).toISOString();
    data.due = due;
    data.wakeId = quotaWaitId(legId);
    // Never delivered (the next leg retires the timer); kept for whoever reads the log.
    events.push({
      type: "wake_scheduled",
      v: 1,
      wakeId: quotaWaitId(legId),
      due,
      text: verdict.text,
      source: "system",
    });
  }
  return [{ type: "engine_note", v: 1, kind: "quota", text: verdict.text, data, legId }, ...events];
}

/**
 * The one mapping from a task's log to spans: a fold of stored events into span records. The live
 * tracer and `traceTask` both feed it, so a live trace and a rebuilt one cannot differ in shape.
 * Every time is a stored event's `at`; nothing reads a clock. It never throws on a well-typed log,
 * whatever order the events come in (a log read from the middle, a crash, a wake after the end).
 */
import type { StoredEvent } from "@sema-agent/core";
import { MODEL_SETTING_KEYS, type ModelSettings } from "@sema-agent/core/protocol";
import { ERROR_TYPE, GEN_AI, LEG_SPAN, OPERATION, SEMA, SETTING_ATTRIBUTES, SPAN_EVENT } from "../attributes.ts";
import { traceIdOf } from "../export/span-ids.ts";
import {
  childPlacement,
  delegateKey,
  ownPlacement,
  type TracePlacement,
  traceparentIds,
} from "../export/trace-placement.ts";
import { instantOf } from "./instant-events.ts";
import { splitModelId } from "./model-id.ts";
import type { SpanAttributes, SpanRecord } from "./span-record.ts";

/** How the fold maps a log. */
export interface SpanFoldOptions {
  /** Record the task's texts (objective, inputs, model output, tool input and output). Default false. */
  captureContent?: boolean;
  /** `gen_ai.provider.name` when a model id does not name its provider (`openai:gpt-4o`). */
  providerName?: string;
  /**
   * Also write the deprecated duplicates that backends built on the GenAI conventions 1.36 and
   * older read: `gen_ai.system` beside `gen_ai.provider.name`. Default false (the latest only).
   */
  deprecatedAttributes?: boolean;
}

type ToolCallInput = { name: string; input: unknown };

/** Folds one task's stored events, in `seq` order, into span records. */
export class SpanFold {
  readonly #options: SpanFoldOptions;
  /**
   * The spans still open, in the order they started: an ended span is handed out and dropped. An
   * array, not a Set: it holds a handful (the task, a leg, its calls) and most spans end soon after
   * they open, where a Set's add and delete of a fresh object cost more than the whole rest of a turn.
   */
  readonly #running: SpanRecord[] = [];
  #root: SpanRecord | undefined;
  #leg: SpanRecord | undefined;
  /** The root ends when the task ends, but not before the leg that ended it. */
  #rootEnding = false;
  #lastAt: string | undefined;
  #requestModel: string | undefined;
  readonly #tools = new Map<string, SpanRecord>();
  readonly #calls = new Map<string, ToolCallInput>();
  readonly #approvals = new Map<string, SpanAttributes>();
  #pendingUserText: string[] = [];
  #namedModel: string | undefined;
  #namedProvider: string | undefined;
  #namedModelName: string | undefined;
  /** The names of the calls the model asked for, until each starts or has a result (a delegating call has no start). */
  readonly #callNames = new Map<string, string>();
  /** The delegating calls whose span is open: they outlive their leg, as their child works on. */
  readonly #delegating = new Set<string>();
  /** Every call a delegating span was opened for (a handful per task: delegation caps the children). */
  readonly #delegated = new Set<string>();
  #placement: TracePlacement | undefined;
  #traceId: string | undefined;

  constructor(options: SpanFoldOptions = {}, placement?: TracePlacement) {
    this.#options = options;
    this.#placement = placement;
  }

  /**
   * Where the task's root span hangs when its `task_created` cannot say by itself: a child's
   * parent trace, read from its ancestors (see `placementOf`). Only before the first event; later it
   * changes nothing, so no span changes trace half-way.
   */
  place(placement: TracePlacement): void {
    if (this.#root === undefined) this.#placement = placement;
  }

  /** The spans still open, in the order they started (the fold keeps nothing it has ended). */
  get open(): readonly SpanRecord[] {
    return [...this.#running];
  }

  /** Folds one event in; returns the spans it ended (what a live tracer exports now). */
  add(event: StoredEvent): SpanRecord[] {
    const ended: SpanRecord[] = [];
    const root = this.#ensureRoot(event);
    switch (event.type) {
      case "task_created":
        break;
      case "leg_started": {
        if (this.#leg !== undefined) this.#loseLeg(this.#leg, event.at, ended);
        const attributes: SpanAttributes = { [SEMA.legId]: event.legId, [SEMA.legTrigger]: event.trigger };
        if (event.holder !== undefined) {
          attributes[SEMA.holderId] = event.holder.id;
          if (event.holder.host !== undefined) attributes[SEMA.holderHost] = event.holder.host;
        }
        this.#leg = this.#open(event, `leg:${event.legId}:${event.seq}`, LEG_SPAN, "internal", attributes, root);
        break;
      }
      case "leg_ended": {
        const leg = this.#leg;
        if (leg === undefined) break;
        for (const [callId, tool] of this.#tools) {
          // A call to an external tool is answered from outside, after the leg: it stays open.
          if (event.reason === "parked:tool" || tool.parentKey !== leg.key || this.#delegating.has(callId)) continue;
          // A crashed leg (its end recorded by whoever recovered it) leaves its calls in doubt.
          const outcome = event.reason === "parked:crash" ? "in_doubt" : "interrupted";
          tool.attributes[outcome === "in_doubt" ? SEMA.toolInDoubt : SEMA.toolInterrupted] = true;
          this.#close(tool, event.at, ended, { code: "error", message: outcome });
          this.#tools.delete(callId);
        }
        leg.attributes[SEMA.legEndReason] = event.reason;
        const failed = event.reason === "failed" || event.reason === "parked:crash";
        this.#close(leg, event.at, ended, failed ? { code: "error", message: event.reason } : undefined);
        this.#leg = undefined;
        if (this.#rootEnding) this.#endRoot(root, event.at, ended);
        break;
      }
      case "task_forked": {
        // The copy of a leg still open at the cut ends here: the fork's own legs come after it.
        // A cut falls between steps, so only calls waiting on a child can still be open, and the
        // fork answers each as interrupted (its child went on for the source, not for the fork).
        const leg = this.#leg;
        if (leg === undefined) break;
        for (const [callId, tool] of this.#tools) {
          if (tool.parentKey !== leg.key) continue;
          tool.attributes[SEMA.toolInterrupted] = true;
          this.#close(tool, event.at, ended, { code: "error", message: "interrupted" });
          this.#tools.delete(callId);
          this.#delegating.delete(callId);
        }
        leg.attributes[SEMA.legEndReason] = "forked";
        this.#close(leg, event.at, ended);
        this.#leg = undefined;
        if (this.#rootEnding) this.#endRoot(root, event.at, ended);
        break;
      }
      case "user_message":
        this.#pendingUserText.push(event.content);
        break;
      case "model_turn": {
        const model = event.model ?? this.#requestModel;
        const modelName = model === undefined ? undefined : this.#modelName(model);
        const attributes: SpanAttributes = {
          [GEN_AI.operation]: OPERATION.chat,
          [GEN_AI.finishReasons]: [event.finishReason],
          [GEN_AI.inputTokens]: event.usage.inputTokens,
          [GEN_AI.outputTokens]: event.usage.outputTokens,
          [SEMA.turnSeq]: event.sessionSeq,
        };
        this.#provider(attributes, model);
        if (this.#requestModel !== undefined) attributes[GEN_AI.requestModel] = this.#modelName(this.#requestModel);
        if (event.model !== undefined) attributes[GEN_AI.responseModel] = this.#modelName(event.model);
        if (event.usage.cachedInputTokens !== undefined)
          attributes[GEN_AI.cachedInputTokens] = event.usage.cachedInputTokens;
        if (event.usage.reasoningTokens !== undefined) attributes[GEN_AI.reasoningTokens] = event.usage.reasoningTokens;
        if (this.#options.captureContent === true) {
          attributes[GEN_AI.inputMessages] = JSON.stringify(
            this.#pendingUserText.map((content) => ({ role: "user", parts: [{ type: "text", content }] })),
          );
          const parts: unknown[] = [];
          if (event.text !== "") parts.push({ type: "text", content: event.text });
          for (const call of event.toolCalls)
            parts.push({ type: "tool_call", id: call.callId, name: call.name, arguments: call.input });
          attributes[GEN_AI.outputMessages] = JSON.stringify([
            { role: "assistant", parts, finish_reason: event.finishReason },
          ]);
        }
        this.#pendingUserText = [];
        for (const call of event.toolCalls) this.#callNames.set(call.callId, call.name);
        if (this.#options.captureContent === true)
          for (const call of event.toolCalls) this.#calls.set(call.callId, { name: call.name, input: call.input });
        // The turn began when the leg's previous event was written: the log has no "model called" event.
        const start = this.#leg !== undefined && this.#lastAt !== undefined ? this.#lastAt : event.at;
        const span = this.#open(
          event,
          `chat:${event.seq}`,
          modelName === undefined ? "chat" : `chat ${modelName}`,
          "client",
          attributes,
          this.#leg ?? root,
          start,
        );
        this.#close(
          span,
          event.at,
          ended,
          event.finishReason === "error" ? { code: "error", message: "error" } : undefined,
        );
        break;
      }
      case "tool_call_started": {
        const previous = this.#tools.get(event.callId);
        if (previous !== undefined) {
          // Started again before a result: the earlier run's outcome is unknown.
          previous.attributes[SEMA.toolInDoubt] = true;
          this.#close(previous, event.at, ended, { code: "error", message: "in_doubt" });
        }
        this.#callNames.delete(event.callId);
        const attributes = this.#toolAttributes(event.callId, event.name);
        attributes[SEMA.toolAttempt] = event.attempt;
        if (this.#options.captureContent === true) {
          const input = event.input ?? this.#calls.get(event.callId)?.input;
          this.#calls.delete(event.callId);
          if (input !== undefined) attributes[GEN_AI.toolArguments] = JSON.stringify(input);
        }
        const span = this.#open(
          event,
          `tool:${event.seq}`,
          `execute_tool ${event.name}`,
          "internal",
          attributes,
          this.#leg ?? root,
        );
        if (event.attempt > 1)
          span.events.push({ name: SPAN_EVENT.retry, at: event.at, attributes: { [SEMA.toolAttempt]: event.attempt } });
        this.#tools.set(event.callId, span);
        break;
      }
      case "tool_result": {
        let span = this.#tools.get(event.callId);
        this.#tools.delete(event.callId);
        this.#calls.delete(event.callId);
        this.#callNames.delete(event.callId);
        this.#delegating.delete(event.callId);
        // A call denied before it ran (or answered from outside) has no start of its own.
        span ??= this.#open(
          event,
          `tool:${event.seq}`,
          `execute_tool ${event.name}`,
          "internal",
          this.#toolAttributes(event.callId, event.name),
          this.#leg ?? root,
        );
        span.attributes[SEMA.toolStatus] = event.status;
        if (event.durationMs !== undefined) span.attributes[SEMA.toolDurationMs] = event.durationMs;
        if (event.truncated === true) span.attributes[SEMA.toolTruncated] = true;
        if (event.status === "interrupted") span.attributes[SEMA.toolInterrupted] = true;
        if (this.#options.captureContent === true) span.attributes[GEN_AI.toolResult] = event.content;
        const failed = event.status === "error" || event.status === "interrupted";
        if (failed) span.attributes[ERROR_TYPE] = event.status;
        this.#approvals.delete(event.callId);
        this.#close(span, event.at, ended, failed ? { code: "error", message: event.status } : undefined);
        break;
      }
      case "tool_checkpoint": {
        const span = this.#tools.get(event.callId);
        const attributes: SpanAttributes = { [GEN_AI.toolCallId]: event.callId };
        if (span !== undefined) span.events.push({ name: SPAN_EVENT.checkpoint, at: event.at, attributes });
        else this.#event(event, SPAN_EVENT.checkpoint, attributes);
        break;
      }
      case "approval_decided":
        this.#approvals.set(event.callId, {
          [SEMA.approvalDecision]: event.decision,
          [SEMA.approvalActor]: event.actor.id,
          [SEMA.approvalVerified]: event.actor.verified,
        });
        this.#instant(event);
        break;
      case "child_task":
        // A delegating call's span runs from the spawn to its result: the child's root hangs under it.
        // Once per call (its key is the call's): a spawn recorded again is only the span event.
        if (event.phase === "spawned" && event.callId !== undefined && !this.#delegated.has(event.callId)) {
          this.#delegated.add(event.callId);
          const name = this.#callNames.get(event.callId) ?? "delegate";
          const attributes = this.#toolAttributes(event.callId, name);
          attributes["sema.child.task_id"] = event.childTaskId;
          const span = this.#open(
            event,
            delegateKey(event.callId),
            `execute_tool ${name}`,
            "internal",
            attributes,
            this.#leg ?? root,
          );
          this.#tools.set(event.callId, span);
          this.#delegating.add(event.callId);
        }
        this.#instant(event);
        break;
      case "human_input":
      case "approval_requested":
      case "hook_feedback":
      case "engine_note":
      case "interrupt_requested":
      case "resume_requested":
      case "compaction":
      case "wake_scheduled":
      case "external_tools":
        this.#instant(event);
        break;
      case "parent_notified":
        break;
      case "task_scored": {
        // A verdict comes after the task ended (its root span exported, never changed): a span of
        // its own, at an instant, under the root, carries it.
        const attributes: SpanAttributes = {
          [SEMA.scoreName]: event.scorer,
          [SEMA.scoreValue]: event.value,
        };
        if (event.reason !== undefined) attributes[SEMA.scoreReason] = event.reason;
        if (event.experiment !== undefined) attributes[SEMA.scoreExperiment] = event.experiment;
        const span = this.#open(event, `score:${event.seq}`, `score ${event.scorer}`, "internal", attributes, root);
        this.#close(span, event.at, ended);
        break;
      }
      case "task_completed":
      case "task_failed":
      case "task_cancelled": {
        // An ended span is never changed: what a live tracer exported stays what the log rebuilds.
        // (A task woken after its end and ending again keeps the first outcome on its span.)
        if (root.end !== undefined) break;
        const status =
          event.type === "task_completed" ? "completed" : event.type === "task_failed" ? "failed" : "cancelled";
        root.attributes[SEMA.taskStatus] = status;
        if (event.type === "task_failed") {
          root.attributes[ERROR_TYPE] = event.error.code;
          root.status = { code: "error", message: event.error.code };
        }
        if (this.#options.captureContent === true && event.type === "task_completed")
          root.attributes[GEN_AI.outputMessages] = JSON.stringify([
            { role: "assistant", parts: [{ type: "text", content: event.result }], finish_reason: "stop" },
          ]);
        if (this.#leg === undefined) this.#endRoot(root, event.at, ended);
        else this.#rootEnding = true;
        break;
      }
    }
    this.#lastAt = event.at;
    return ended;
  }

  /**
   * Ends every span still open at the time of the last event, marked `sema.span.open`: what a
   * trace of a task that is still running (or parked) shows. Returns the spans it ended.
   */
  close(): SpanRecord[] {
    const ended: SpanRecord[] = [];
    const at = this.#lastAt;
    if (at === undefined) return ended;
    for (const span of [...this.#running]) {
      span.attributes[SEMA.open] = true;
      this.#close(span, at, ended);
    }
    return ended;
  }

  #ensureRoot(event: StoredEvent): SpanRecord {
    if (this.#root !== undefined) return this.#root;
    // A log read from its start begins with task_created; one that does not still gets a root.
    const created = event.type === "task_created" ? event : undefined;
    const attributes: SpanAttributes = {
      [GEN_AI.operation]: OPERATION.invokeAgent,
      [GEN_AI.conversationId]: event.taskId,
    };
    if (created?.agent !== undefined) attributes[GEN_AI.agentName] = created.agent;
    if (created?.model !== undefined) {
      this.#requestModel = created.model;
      attributes[GEN_AI.requestModel] = this.#modelName(created.model);
      this.#provider(attributes, created.model);
    }
    if (created !== undefined) {
      attributes[SEMA.principal] = created.principal;
      if (created.parentTaskId !== undefined) attributes[SEMA.parentTaskId] = created.parentTaskId;
      const settings = created.settings;
      if (settings !== undefined) settingAttributes(settings, attributes);
      if (this.#options.captureContent === true)
        attributes[GEN_AI.inputMessages] = JSON.stringify([
          { role: "user", parts: [{ type: "text", content: created.objective }] },
        ]);
    }
    const name = created?.agent === undefined ? "invoke_agent" : `invoke_agent ${created.agent}`;
    // The caller's context wins; a child's parent trace comes from `place` (else the parent's own).
    const placement =
      (created === undefined ? undefined : ownPlacement(created)) ??
      this.#placement ??
      (created === undefined
        ? { traceId: traceIdOf(event.taskId) }
        : childPlacement(created, traceIdOf(created.parentTaskId ?? created.taskId)));
    this.#traceId = placement.traceId;
    const root: SpanRecord = {
      taskId: event.taskId,
      traceId: placement.traceId,
      ...(placement.parentSpanId === undefined ? {} : { parentSpanId: placement.parentSpanId }),
      key: "task",
      name,
      kind: "internal",
      start: event.at,
      attributes,
      events: [],
      status: { code: "unset" },
    };
    this.#running.push(root);
    this.#root = root;
    return root;
  }

  /** Parse `model` into its provider and name, once for the model every turn names. */
  #parse(model: string | undefined): void {
    if (model === this.#namedModel) return;
    this.#namedModel = model;
    const parts = model === undefined ? undefined : splitModelId(model);
    this.#namedProvider = parts?.provider;
    this.#namedModelName = parts?.name;
  }

  /** The model's own name, without its provider (the conventions' `gen_ai.request.model`). */
  #modelName(model: string): string {
    this.#parse(model);
    return this.#namedModelName ?? model;
  }

  #provider(attributes: SpanAttributes, model: string | undefined): void {
    this.#parse(model);
    const provider = this.#namedProvider ?? this.#options.providerName;
    if (provider === undefined) return;
    attributes[GEN_AI.providerName] = provider;
    if (this.#options.deprecatedAttributes === true) attributes[GEN_AI.system] = provider;
  }

  #toolAttributes(callId: string, name: string): SpanAttributes {
    return {
      [GEN_AI.operation]: OPERATION.executeTool,
      [GEN_AI.toolName]: name,
      [GEN_AI.toolCallId]: callId,
      ...this.#approvals.get(callId),
    };
  }

  #open(
    event: StoredEvent,
    key: string,
    name: string,
    kind: SpanRecord["kind"],
    attributes: SpanAttributes,
    parent: SpanRecord,
    start: string = event.at,
  ): SpanRecord {
    const span: SpanRecord = {
      taskId: event.taskId,
      traceId: this.#traceId ?? parent.traceId,
      key,
      parentKey: parent.key,
      name,
      kind,
      start,
      attributes,
      events: [],
      status: { code: "unset" },
    };
    this.#running.push(span);
    return span;
  }

  #close(span: SpanRecord, at: string, ended: SpanRecord[], status?: SpanRecord["status"]): void {
    if (span.end !== undefined) return;
    span.end = at < span.start ? span.start : at;
    if (status !== undefined) span.status = status;
    // The span that ends is most often the one opened last (a chat span ends as it opens).
    const running = this.#running;
    const index = running.lastIndexOf(span);
    if (index >= 0 && index === running.length - 1) running.pop();
    else if (index >= 0) running.splice(index, 1);
    ended.push(span);
  }

  /** The span event of an arm that happens at an instant (see `instantOf`). */
  #instant(event: StoredEvent): void {
    const instant = instantOf(event, this.#options.captureContent === true);
    if (instant === undefined) return;
    const span = this.#event(event, instant.name, instant.attributes);
    // A caller's steer or decision links the span it lands in to the caller's span.
    if (span === undefined || (event.type !== "human_input" && event.type !== "approval_decided")) return;
    const ids = event.traceContext === undefined ? undefined : traceparentIds(event.traceContext.traceparent);
    if (ids === undefined) return;
    const attributes: SpanAttributes = { "sema.link.event": event.type };
    if (event.type === "human_input") attributes["sema.input.id"] = event.inputId;
    else attributes[GEN_AI.toolCallId] = event.callId;
    const link = { traceId: ids.traceId, spanId: ids.spanId, attributes };
    if (span.links === undefined) span.links = [link];
    else span.links.push(link);
  }

  /** A span event on the innermost open span: the running leg, else the task. Returns that span. */
  #event(event: StoredEvent, name: string, attributes: SpanAttributes): SpanRecord | undefined {
    // Only on an open span: an ended one has been exported and must not change.
    const span = this.#leg ?? (this.#root?.end === undefined ? this.#root : undefined);
    span?.events.push({ name, at: event.at, attributes });
    return span;
  }

  /** A leg that ended without a record (its holder died): ended at the next leg's start, its calls in doubt. */
  #loseLeg(leg: SpanRecord, at: string, ended: SpanRecord[]): void {
    for (const [callId, tool] of this.#tools) {
      if (tool.parentKey !== leg.key || this.#delegating.has(callId)) continue;
      tool.attributes[SEMA.toolInDoubt] = true;
      this.#close(tool, at, ended, { code: "error", message: "in_doubt" });
      this.#tools.delete(callId);
    }
    leg.attributes[SEMA.legEndReason] = "lost";
    this.#close(leg, at, ended, { code: "error", message: "lost" });
    this.#leg = undefined;
  }

  #endRoot(root: SpanRecord, at: string, ended: SpanRecord[]): void {
    this.#rootEnding = false;
    // A call still open when the task ends (a cancel while it waited on a child or an external
    // tool) ends with it: a live tracer forgets the task now, so it must not be left for a rebuild.
    for (const [callId, tool] of this.#tools) {
      tool.attributes[SEMA.toolInterrupted] = true;
      this.#close(tool, at, ended, { code: "error", message: "interrupted" });
      this.#tools.delete(callId);
      this.#delegating.delete(callId);
    }
    this.#close(root, at, ended);
  }
}

/**
 * The spans of a whole log (`seq` order): the fold of every event, open spans ended at the last
 * event, in the order they started.
 */
export function foldSpans(
  events: readonly StoredEvent[],
  options: SpanFoldOptions = {},
  placement?: TracePlacement,
): SpanRecord[] {
  const fold = new SpanFold(options, placement);
  const spans: SpanRecord[] = [];
  for (const event of events) spans.push(...fold.add(event));
  spans.push(...fold.close());
  // Stable: spans that start at the same stored time keep the order they ended in.
  return spans.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** The task's model settings as the conventions' `gen_ai.request.*` attributes, where they have one. */
function settingAttributes(settings: ModelSettings, attributes: SpanAttributes): void {
  for (const key of MODEL_SETTING_KEYS) {
    const name = SETTING_ATTRIBUTES[key];
    const value = settings[key];
    if (name === null || value === undefined) continue;
    if (typeof value === "number") attributes[name] = value;
    else if (Array.isArray(value)) attributes[name] = [...value];
  }
}

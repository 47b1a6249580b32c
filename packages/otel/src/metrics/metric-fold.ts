/**
 * The one mapping from a task's log to measurements: it folds the events through the same
 * `SpanFold` the traces use and turns each ended span into its measurements (a chat span's end is
 * a `gen_ai.client.operation.duration` and two `gen_ai.client.token.usage`), plus what is not a
 * span (an approval's wait, an input's delivery, a task's creation). Every duration is the
 * difference of two stored `at`s; nothing reads a clock. Pure: the live sink decides which
 * measurements to record (only those of events this process appended).
 *
 * What it records per turn costs no allocation of its own: the attribute sets are made once per
 * distinct set of labels (a fold's chat, token and tool labels are the same turn after turn),
 * frozen and handed out again, and the live sink takes them through `record` without building a
 * `Measurement` at all.
 */
import type { StoredEvent } from "@sema-agent/core";
import { ERROR_TYPE, GEN_AI, OPERATION, SEMA } from "../attributes.ts";
import { isoMs } from "../export/iso-ms.ts";
import { SpanFold, type SpanFoldOptions } from "../spans/span-fold.ts";
import type { SpanAttributes, SpanRecord } from "../spans/span-record.ts";
import { METRIC, METRIC_ATTRIBUTE, type MetricName } from "./metric-names.ts";
import { toolLabeler } from "./tool-labels.ts";

/** A metric's attributes: strings only, each of a bounded set (frozen, and shared between measurements). */
export type MetricAttributes = Record<string, string>;

/** One value to record on one metric. */
export interface Measurement {
  /** The metric (see `METRIC`). */
  metric: MetricName;
  /** Seconds for durations, a count for tokens, 1 for a counter's increment. */
  value: number;
  /** Its attributes. */
  attributes: MetricAttributes;
}

/** The carriers the harness delivers; a host's own carrier is recorded as `_OTHER` (bounded labels). */
const CARRIERS = new Set(["objective", "steer", "nextTurn", "resume", "wake"]);

interface PendingInput {
  at: string;
  carrier: string;
  lane: string;
}

// The last two stored times parsed, most recent first: a chat span starts at the event before it
// and a tool's span at its turn, so most times of a turn were parsed a moment ago.
let lastIso = "";
let lastMs = 0;
let priorIso = "";
let priorMs = 0;

/** `isoMs(iso)`, remembered for the last two times asked. */
function msOf(iso: string): number {
  if (iso === lastIso) return lastMs;
  if (iso === priorIso) return priorMs;
  const ms = isoMs(iso);
  priorIso = lastIso;
  priorMs = lastMs;
  lastIso = iso;
  lastMs = ms;
  return ms;
}

// `isoMs` is `Date.parse`, faster for the stored form (Date.parse was 2 % of a metered leg).
const seconds = (start: string, end: string) => Math.max(0, (msOf(end) - msOf(start)) / 1000);

/** Copies the listed attributes that are set, as strings. */
function pick(from: SpanAttributes, keys: readonly string[]): MetricAttributes {
  const out: MetricAttributes = {};
  for (const key of keys) {
    const value = from[key];
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(",") : String(value);
  }
  return out;
}

/** What a {@link MetricFold} reads: the span fold's options, and how a tool name becomes a label. */
export interface MetricFoldOptions extends SpanFoldOptions {
  /**
   * The `gen_ai.tool.name` to record for a called name (`toolLabeler`): names a model made up
   * fold into `_OTHER`. Default: the first 64 names this fold sees, the rest `_OTHER`.
   */
  toolLabel?: (name: string) => string;
}

/** Where a fold's measurements go: one call per measurement, its attributes frozen and shared. */
export type RecordMeasurement = (metric: MetricName, value: number, attributes: MetricAttributes) => void;

/** The attribute sets of one model's turns: its duration (ok or failed) and its two token counts. */
interface ChatLabels {
  ok: MetricAttributes;
  failed: MetricAttributes;
  input: MetricAttributes;
  output: MetricAttributes;
}

/** The chat labels made last, and the span attribute values they were made from. */
interface LastChat {
  provider: SpanAttributes[string] | undefined;
  request: SpanAttributes[string] | undefined;
  response: SpanAttributes[string] | undefined;
  operation: SpanAttributes[string] | undefined;
  labels: ChatLabels;
}

const NONE = "\u0000";

/** Folds one task's stored events, in `seq` order, into measurements. */
export class MetricFold {
  readonly #spans: SpanFold;
  readonly #toolLabel: (name: string) => string;
  #agent: MetricAttributes = Object.freeze({});
  readonly #approvals = new Map<string, { at: string; tool: string }>();
  readonly #inputs = new Map<string, PendingInput>();
  // The attribute sets made so far, by their labels: a handful per task (its models, its tools).
  readonly #chats = new Map<string, ChatLabels>();
  readonly #tools = new Map<string, MetricAttributes>();
  // The labels of the last chat span, by the values they were made from (strings, compared as such).
  #lastChat: LastChat | undefined;

  constructor(options: MetricFoldOptions = {}) {
    const { toolLabel, ...spanOptions } = options;
    // No texts in metrics, whatever the traces capture.
    this.#spans = new SpanFold({ ...spanOptions, captureContent: false });
    this.#toolLabel = toolLabel ?? toolLabeler(undefined);
  }

  /** Folds one event in; returns the measurements it completes. */
  add(event: StoredEvent): Measurement[] {
    const out: Measurement[] = [];
    this.record(event, (metric, value, attributes) => out.push({ metric, value, attributes }));
    return out;
  }

  /**
   * Folds one event in and hands each measurement it completes to `record`, in the order `add`
   * returns them, without making a `Measurement`; without `record` the event is folded as context
   * only (what the live sink does for an event another process appended).
   */
  record(event: StoredEvent, record?: RecordMeasurement): void {
    switch (event.type) {
      case "task_created":
        this.#agent = Object.freeze(event.agent === undefined ? {} : { [GEN_AI.agentName]: event.agent });
        record?.(METRIC.taskStarted, 1, this.#agent);
        break;
      case "approval_requested":
        this.#approvals.set(event.callId, { at: event.at, tool: this.#toolLabel(event.name) });
        break;
      case "approval_decided": {
        const requested = this.#approvals.get(event.callId);
        this.#approvals.delete(event.callId);
        if (requested !== undefined)
          record?.(
            METRIC.approvalWait,
            seconds(requested.at, event.at),
            Object.freeze({ [SEMA.approvalDecision]: event.decision, [GEN_AI.toolName]: requested.tool }),
          );
        break;
      }
      case "human_input": {
        if (event.delivery === "received" || event.delivery === "parked") {
          if (!this.#inputs.has(event.inputId))
            this.#inputs.set(event.inputId, {
              at: event.at,
              carrier: CARRIERS.has(event.carrier) ? event.carrier : "_OTHER",
              lane: event.source,
            });
          break;
        }
        const pending = this.#inputs.get(event.inputId);
        this.#inputs.delete(event.inputId);
        if (pending !== undefined)
          record?.(
            METRIC.inputDelivery,
            seconds(pending.at, event.at),
            Object.freeze({
              [METRIC_ATTRIBUTE.inputCarrier]: pending.carrier,
              [METRIC_ATTRIBUTE.inputLane]: pending.lane,
              [METRIC_ATTRIBUTE.inputOutcome]: event.delivery,
            }),
          );
        break;
      }
      default:
        break;
    }
    // Without `record` the spans are still read: a tool's name still meets the labeler, as it would live.
    for (const span of this.#spans.add(event)) this.#fromSpan(span, record ?? ignore);
  }

  #fromSpan(span: SpanRecord, record: RecordMeasurement): void {
    const attributes = span.attributes;
    if (span.parentKey === undefined) {
      const ended = Object.freeze({ ...this.#agent, ...pick(attributes, [SEMA.taskStatus, ERROR_TYPE]) });
      // A root ended without a terminal event (a rebuilt trace's close) is not a task's end.
      if (ended[SEMA.taskStatus] === undefined) return;
      record(METRIC.taskEnded, 1, ended);
      record(METRIC.taskDuration, duration(span), ended);
      return;
    }
    const score = attributes[SEMA.scoreValue];
    if (typeof score === "number") {
      // The scorer's name is the operator's, a bounded set; the experiment (an id) is left out.
      record(METRIC.taskScore, score, Object.freeze({ ...this.#agent, ...pick(attributes, [SEMA.scoreName]) }));
      return;
    }
    const operation = attributes[GEN_AI.operation];
    if (operation === OPERATION.chat) {
      const labels = this.#chatLabels(attributes);
      // A turn the provider ended with an error: the conventions' fallback class of error.
      record(METRIC.operationDuration, duration(span), span.status.code === "error" ? labels.failed : labels.ok);
      const input = attributes[GEN_AI.inputTokens];
      if (typeof input === "number") record(METRIC.tokenUsage, input, labels.input);
      const output = attributes[GEN_AI.outputTokens];
      if (typeof output === "number") record(METRIC.tokenUsage, output, labels.output);
      return;
    }
    if (operation === OPERATION.executeTool) {
      // A call that never ran (denied before it started, answered from outside) has no duration.
      if (attributes[SEMA.toolAttempt] === undefined) return;
      const status =
        attributes[SEMA.toolStatus] ??
        (attributes[SEMA.toolInDoubt] === true
          ? "in_doubt"
          : attributes[SEMA.toolInterrupted] === true
            ? "interrupted"
            : "error");
      const name = attributes[GEN_AI.toolName];
      record(
        METRIC.toolDuration,
        duration(span),
        this.#toolAttributes(name === undefined ? undefined : this.#toolLabel(String(name)), String(status)),
      );
      return;
    }
    if (attributes[SEMA.legEndReason] !== undefined) {
      const leg = Object.freeze({ ...this.#agent, ...pick(attributes, [SEMA.legEndReason, SEMA.legTrigger]) });
      record(METRIC.legEnded, 1, leg);
      record(METRIC.legDuration, duration(span), leg);
    }
  }

  /** The attribute sets of a chat span's labels, made once per distinct provider and models. */
  #chatLabels(attributes: SpanAttributes): ChatLabels {
    // Turn after turn the same provider and models: the last set again, without building its key.
    const last = this.#lastChat;
    if (
      last !== undefined &&
      attributes[GEN_AI.providerName] === last.provider &&
      attributes[GEN_AI.requestModel] === last.request &&
      attributes[GEN_AI.responseModel] === last.response &&
      attributes[GEN_AI.operation] === last.operation
    )
      return last.labels;
    const labels = this.#chatLabelsByKey(attributes);
    this.#lastChat = {
      provider: attributes[GEN_AI.providerName],
      request: attributes[GEN_AI.requestModel],
      response: attributes[GEN_AI.responseModel],
      operation: attributes[GEN_AI.operation],
      labels,
    };
    return labels;
  }

  #chatLabelsByKey(attributes: SpanAttributes): ChatLabels {
    const provider = label(attributes[GEN_AI.providerName]);
    const request = label(attributes[GEN_AI.requestModel]);
    const response = label(attributes[GEN_AI.responseModel]);
    const operation = label(attributes[GEN_AI.operation]);
    const key = `${operation}${NONE}${provider}${NONE}${request}${NONE}${response}`;
    let labels = this.#chats.get(key);
    if (labels === undefined) {
      const chat = pick(attributes, [GEN_AI.operation, GEN_AI.providerName, GEN_AI.requestModel, GEN_AI.responseModel]);
      labels = {
        ok: Object.freeze({ ...chat }),
        failed: Object.freeze({ ...chat, [ERROR_TYPE]: "_OTHER" }),
        input: Object.freeze({ ...chat, [METRIC_ATTRIBUTE.tokenType]: "input" }),
        output: Object.freeze({ ...chat, [METRIC_ATTRIBUTE.tokenType]: "output" }),
      };
      this.#chats.set(key, labels);
    }
    return labels;
  }

  /** A tool duration's attribute set, made once per distinct tool label and status. */
  #toolAttributes(name: string | undefined, status: string): MetricAttributes {
    const key = `${name ?? NONE}${NONE}${status}`;
    let attributes = this.#tools.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({
        ...(name === undefined ? {} : { [GEN_AI.toolName]: name }),
        [SEMA.toolStatus]: status,
      });
      this.#tools.set(key, attributes);
    }
    return attributes;
  }
}

/** A label's part of a cache key: its string form as `pick` writes it, or a mark for an unset one. */
function label(value: SpanAttributes[string] | undefined): string {
  return value === undefined ? NONE : Array.isArray(value) ? value.join(",") : String(value);
}

/** Drops a measurement: an event folded as context only. */
const ignore: RecordMeasurement = () => {};

/** A span's duration in seconds, from its stored start and end. */
const duration = (span: SpanRecord) => seconds(span.start, span.end ?? span.start);

/** The measurements of a whole log (`seq` order): what a process that appended all of it records. */
export function foldMeasurements(events: readonly StoredEvent[], options: MetricFoldOptions = {}): Measurement[] {
  const fold = new MetricFold(options);
  return events.flatMap((event) => fold.add(event));
}

/**
 * The reference for the equivalence property (recording-equivalence.test.ts): the
 * `MetricFold` as it was before its attribute sets were shared and its measurements handed straight
 * to the instruments (858cc93), kept verbatim but for its names, so the live sink can be checked
 * against what per-event recording exported. Not built into the package.
 *
 * The one mapping from a task's log to measurements: it folds the events through the same
 * `SpanFold` the traces use and turns each ended span into its measurements (a chat span's end is
 * a `gen_ai.client.operation.duration` and two `gen_ai.client.token.usage`), plus what is not a
 * span (an approval's wait, an input's delivery, a task's creation). Every duration is the
 * difference of two stored `at`s; nothing reads a clock. Pure: the live sink decides which
 * measurements to record (only those of events this process appended).
 */
import type { StoredEvent } from "@sema-agent/core";
import { ERROR_TYPE, GEN_AI, OPERATION, SEMA } from "../attributes.ts";
import { isoMs } from "../export/iso-ms.ts";
import { SpanFold, type SpanFoldOptions } from "../spans/span-fold.ts";
import type { SpanAttributes, SpanRecord } from "../spans/span-record.ts";
import { METRIC, METRIC_ATTRIBUTE, type MetricName } from "./metric-names.ts";
import { toolLabeler } from "./tool-labels.ts";

type MetricAttributes = Record<string, string>;

interface Measurement {
  metric: MetricName;
  value: number;
  attributes: MetricAttributes;
}

/** The carriers the harness delivers; a host's own carrier is recorded as `_OTHER` (bounded labels). */
const CARRIERS = new Set(["objective", "steer", "nextTurn", "resume", "wake"]);

interface PendingInput {
  at: string;
  carrier: string;
  lane: string;
}

// `isoMs` is `Date.parse`, faster for the stored form (Date.parse was 2 % of a metered leg).
const seconds = (start: string, end: string) => Math.max(0, (isoMs(end) - isoMs(start)) / 1000);

/** Copies the listed attributes that are set, as strings. */
function pick(from: SpanAttributes, keys: readonly string[]): MetricAttributes {
  const out: MetricAttributes = {};
  for (const key of keys) {
    const value = from[key];
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(",") : String(value);
  }
  return out;
}

/** What a {@link PerEventMetricFold} reads: the span fold's options, and how a tool name becomes a label. */
interface MetricFoldOptions extends SpanFoldOptions {
  /**
   * The `gen_ai.tool.name` to record for a called name (`toolLabeler`): names a model made up
   * fold into `_OTHER`. Default: the first 64 names this fold sees, the rest `_OTHER`.
   */
  toolLabel?: (name: string) => string;
}

/** Folds one task's stored events, in `seq` order, into measurements. */
export class PerEventMetricFold {
  readonly #spans: SpanFold;
  readonly #toolLabel: (name: string) => string;
  #agent: string | undefined;
  readonly #approvals = new Map<string, { at: string; tool: string }>();
  readonly #inputs = new Map<string, PendingInput>();

  constructor(options: MetricFoldOptions = {}) {
    const { toolLabel, ...spanOptions } = options;
    // No texts in metrics, whatever the traces capture.
    this.#spans = new SpanFold({ ...spanOptions, captureContent: false });
    this.#toolLabel = toolLabel ?? toolLabeler(undefined);
  }

  /** Folds one event in; returns the measurements it completes. */
  add(event: StoredEvent): Measurement[] {
    const out: Measurement[] = [];
    switch (event.type) {
      case "task_created":
        this.#agent = event.agent;
        out.push({ metric: METRIC.taskStarted, value: 1, attributes: this.#agentAttributes() });
        break;
      case "approval_requested":
        this.#approvals.set(event.callId, { at: event.at, tool: this.#toolLabel(event.name) });
        break;
      case "approval_decided": {
        const requested = this.#approvals.get(event.callId);
        this.#approvals.delete(event.callId);
        if (requested !== undefined)
          out.push({
            metric: METRIC.approvalWait,
            value: seconds(requested.at, event.at),
            attributes: { [SEMA.approvalDecision]: event.decision, [GEN_AI.toolName]: requested.tool },
          });
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
          out.push({
            metric: METRIC.inputDelivery,
            value: seconds(pending.at, event.at),
            attributes: {
              [METRIC_ATTRIBUTE.inputCarrier]: pending.carrier,
              [METRIC_ATTRIBUTE.inputLane]: pending.lane,
              [METRIC_ATTRIBUTE.inputOutcome]: event.delivery,
            },
          });
        break;
      }
      default:
        break;
    }
    for (const span of this.#spans.add(event)) this.#fromSpan(span, out);
    return out;
  }

  #agentAttributes(): MetricAttributes {
    return this.#agent === undefined ? {} : { [GEN_AI.agentName]: this.#agent };
  }

  #fromSpan(span: SpanRecord, out: Measurement[]): void {
    const end = span.end ?? span.start;
    const duration = seconds(span.start, end);
    const attributes = span.attributes;
    if (span.parentKey === undefined) {
      const ended = { ...this.#agentAttributes(), ...pick(attributes, [SEMA.taskStatus, ERROR_TYPE]) };
      // A root ended without a terminal event (a rebuilt trace's close) is not a task's end.
      if (ended[SEMA.taskStatus] === undefined) return;
      out.push({ metric: METRIC.taskEnded, value: 1, attributes: ended });
      out.push({ metric: METRIC.taskDuration, value: duration, attributes: ended });
      return;
    }
    const score = attributes[SEMA.scoreValue];
    if (typeof score === "number") {
      // The scorer's name is the operator's, a bounded set; the experiment (an id) is left out.
      const scored = { ...this.#agentAttributes(), ...pick(attributes, [SEMA.scoreName]) };
      out.push({ metric: METRIC.taskScore, value: score, attributes: scored });
      return;
    }
    const operation = attributes[GEN_AI.operation];
    if (operation === OPERATION.chat) {
      const chat = pick(attributes, [GEN_AI.operation, GEN_AI.providerName, GEN_AI.requestModel, GEN_AI.responseModel]);
      // A turn the provider ended with an error: the conventions' fallback class of error.
      const failed = span.status.code === "error" ? { [ERROR_TYPE]: "_OTHER" } : {};
      out.push({ metric: METRIC.operationDuration, value: duration, attributes: { ...chat, ...failed } });
      for (const [type, key] of [
        ["input", GEN_AI.inputTokens],
        ["output", GEN_AI.outputTokens],
      ] as const) {
        const tokens = attributes[key];
        if (typeof tokens === "number")
          out.push({
            metric: METRIC.tokenUsage,
            value: tokens,
            attributes: { ...chat, [METRIC_ATTRIBUTE.tokenType]: type },
          });
      }
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
      out.push({
        metric: METRIC.toolDuration,
        value: duration,
        attributes: {
          ...(name === undefined ? {} : { [GEN_AI.toolName]: this.#toolLabel(String(name)) }),
          [SEMA.toolStatus]: String(status),
        },
      });
      return;
    }
    if (attributes[SEMA.legEndReason] !== undefined) {
      const leg = { ...this.#agentAttributes(), ...pick(attributes, [SEMA.legEndReason, SEMA.legTrigger]) };
      out.push({ metric: METRIC.legEnded, value: 1, attributes: leg });
      out.push({ metric: METRIC.legDuration, value: duration, attributes: leg });
    }
  }
}

/** The measurements of a whole log (`seq` order): what a process that appended all of it records. */
export function perEventMeasurements(events: readonly StoredEvent[], options: MetricFoldOptions = {}): Measurement[] {
  const fold = new PerEventMetricFold(options);
  return events.flatMap((event) => fold.add(event));
}

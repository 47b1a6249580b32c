/**
 * The metrics Sema records: the GenAI conventions' client metrics (names, units and bucket
 * boundaries as the conventions advise, https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/)
 * and Sema's own `sema.*` ones. Every attribute is of a bounded set (statuses, reasons, agent,
 * model and tool names): never a task, input or call id, nor a principal.
 */
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from "@opentelemetry/semantic-conventions/incubating";

/** The names of the metrics, by what they measure. */
export const METRIC = {
  operationDuration: METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  tokenUsage: METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  taskStarted: "sema.task.started",
  taskEnded: "sema.task.ended",
  taskDuration: "sema.task.duration",
  taskScore: "sema.task.score",
  legEnded: "sema.leg.ended",
  legDuration: "sema.leg.duration",
  toolDuration: "sema.tool.duration",
  approvalWait: "sema.approval.wait.duration",
  inputDelivery: "sema.input.delivery.duration",
  storeAppend: "sema.store.append.duration",
  tasksRunnable: "sema.tasks.runnable",
  legsRunning: "sema.legs.running",
  tasks: "sema.tasks",
  storeBytes: "sema.store.bytes",
} as const;

/** The name of one of Sema's metrics. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The conventions' advice for `gen_ai.client.operation.duration` (seconds). */
export const DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** The conventions' advice for `gen_ai.client.token.usage` (tokens). */
export const TOKEN_BUCKETS: readonly number[] = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** Waits on people and whole tasks (seconds): a second to a day. */
export const WAIT_BUCKETS: readonly number[] = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 43200, 86400];

/** A verdict's value: tenths from 0 to 1. */
export const SCORE_BUCKETS: readonly number[] = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** A store's append (seconds): half a millisecond to five seconds. */
export const STORE_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** How each histogram and counter is declared: kind, unit, description and buckets. */
export interface MetricSpec {
  /** `histogram`, `counter`, or `gauge` (observable). */
  kind: "histogram" | "counter" | "gauge";
  /** UCUM unit, as the conventions write it (`s`, `{token}`). */
  unit: string;
  /** What it measures. */
  description: string;
  /** A histogram's explicit bucket boundaries. */
  buckets?: readonly number[];
}

/** Every metric's declaration. */
export const METRIC_SPECS: Readonly<Record<MetricName, MetricSpec>> = {
  [METRIC.operationDuration]: {
    kind: "histogram",
    unit: "s",
    description: "GenAI operation duration: a model turn, from the leg's previous event to the stored turn.",
    buckets: DURATION_BUCKETS,
  },
  [METRIC.tokenUsage]: {
    kind: "histogram",
    unit: "{token}",
    description: "Number of input and output tokens used, per model turn.",
    buckets: TOKEN_BUCKETS,
  },
  [METRIC.taskStarted]: { kind: "counter", unit: "{task}", description: "Tasks created." },
  [METRIC.taskEnded]: {
    kind: "counter",
    unit: "{task}",
    description: "Tasks that ended, by terminal status (completed, failed, cancelled).",
  },
  [METRIC.taskDuration]: {
    kind: "histogram",
    unit: "s",
    description: "A task's time from creation to its end, parked time included.",
    buckets: WAIT_BUCKETS,
  },
  [METRIC.taskScore]: {
    kind: "histogram",
    unit: "1",
    description: "A scorer's verdict on a task (task_scored), from 0 to 1, by scorer and agent.",
    buckets: SCORE_BUCKETS,
  },
  [METRIC.legEnded]: { kind: "counter", unit: "{leg}", description: "Legs that ended, by end reason." },
  [METRIC.legDuration]: {
    kind: "histogram",
    unit: "s",
    description: "A leg's time from leg_started to leg_ended.",
    buckets: DURATION_BUCKETS,
  },
  [METRIC.toolDuration]: {
    kind: "histogram",
    unit: "s",
    description: "A tool call's time from tool_call_started to its result, by tool and status.",
    buckets: DURATION_BUCKETS,
  },
  [METRIC.approvalWait]: {
    kind: "histogram",
    unit: "s",
    description: "Time a call waited for its approval decision (approval_requested to approval_decided).",
    buckets: WAIT_BUCKETS,
  },
  [METRIC.inputDelivery]: {
    kind: "histogram",
    unit: "s",
    description: "Time from an input's arrival to its delivery into a model request (or its drop).",
    buckets: DURATION_BUCKETS,
  },
  [METRIC.storeAppend]: {
    kind: "histogram",
    unit: "s",
    description: "Latency of the store's appends (append and createTask) in this process.",
    buckets: STORE_BUCKETS,
  },
  [METRIC.tasksRunnable]: {
    kind: "gauge",
    unit: "{task}",
    description: "Tasks runnable and waiting for a worker, as the host's callback counts them.",
  },
  [METRIC.legsRunning]: { kind: "gauge", unit: "{leg}", description: "Legs running in this process's worker pool." },
  [METRIC.tasks]: {
    kind: "gauge",
    unit: "{task}",
    description: "Tasks in the store by status (sema.task.status), as Store.stats counts them.",
  },
  [METRIC.storeBytes]: {
    kind: "gauge",
    unit: "By",
    description: "The store's size as its database reports it (SQLite: the file's pages; PostgreSQL: its tables).",
  },
};

/** Sema's own metric attribute names (the `gen_ai.*` ones are the conventions'). */
export const METRIC_ATTRIBUTE = {
  tokenType: "gen_ai.token.type",
  inputCarrier: "sema.input.carrier",
  inputLane: "sema.input.lane",
  inputOutcome: "sema.input.outcome",
  storeOperation: "sema.store.operation",
  taskStatus: "sema.task.status",
} as const;

/**
 * The live metrics sink: an `emit` that folds each task's stored events as they arrive (the
 * `MetricFold`, over the same span fold as the traces) and records the measurements of each event
 * it is given. Give it only what this process appended (`instrumentStore` feeds it every append:
 * legs, steers, approvals, cancels), and every event is counted once across any number of
 * processes: a process that sees a task from the middle reads what it missed from `store` to
 * rebuild the context (when an approval was requested, when an input arrived) but records nothing
 * for those events, since the process that appended them did. An event given twice (the harness's
 * emit and the store wrapper both) is folded once.
 */
import type { Meter, MeterProvider } from "@opentelemetry/api";
import type { Emit, Store, StoredEvent, StreamEvent } from "@sema-agent/core";
import { background } from "../sink/background.ts";
import { instrumentsOf, meterOf } from "./instruments.ts";
import { MetricFold, type MetricFoldOptions, type RecordMeasurement } from "./metric-fold.ts";
import type { MetricsProducer } from "./metrics-producer.ts";
import { toolLabeler } from "./tool-labels.ts";

/** Where the metrics go and where missed events are read from. */
export interface MetricsEmitOptions {
  /** The meter the instruments are created on; or give `meterProvider`. */
  meter?: Meter;
  /** Its meter `@sema-agent/otel` is used. */
  meterProvider?: MeterProvider;
  /**
   * Where the histograms are recorded instead of the meter (`createMetricsProducer`, listed in the
   * readers' `metricProducers`); the counters stay on the meter. Every sink and store wrapper on
   * one meter must give the same producer, or none. Default: every metric on the meter.
   */
  producer?: MetricsProducer;
  /** Where events the sink never saw are read from (context only, never counted). Without it a gap is folded as it is. */
  store?: Store;
  /** `gen_ai.provider.name` when a model id does not name its provider. */
  providerName?: string;
  /**
   * The tool names `gen_ai.tool.name` may take (`agentToolNames(agents)`): any other name a model
   * calls is recorded as `_OTHER`, so made-up names add no series. Default: the first 64 names
   * seen by this sink, the rest `_OTHER`.
   */
  toolNames?: Iterable<string>;
  /** Tasks whose fold is kept between events (least recently used forgotten first; re-read when needed). Default 1000. */
  maxTasks?: number;
  /** Called when a gap's read fails or recording throws (metrics never fail a leg). Default: ignored. */
  onError?: (error: unknown) => void;
}

/** An `emit` sink that records metrics, with a way to wait for its reads. */
export interface MetricsEmit {
  /** How many tasks it holds a fold for. */
  readonly tasks: number;
  /** The sink: pass it to `instrumentStore` (or as `HarnessOptions.emit`); it never throws. */
  emit: Emit;
  /** Resolves when every pending read has settled and what it unblocked is recorded. */
  flush(): Promise<void>;
}

interface TaskMetrics {
  fold: MetricFold;
  next: number;
  queue: StoredEvent[];
  filling: boolean;
}

/** Builds the live metrics sink (see the module's note). */
export function metricsEmit(options: MetricsEmitOptions): MetricsEmit {
  const instruments = instrumentsOf(meterOf(options, "metricsEmit"), options.producer);
  const { store, onError } = options;
  const maxTasks = Math.max(1, options.maxTasks ?? 1000);
  // One labeler for every task's fold: the bound holds across tasks, not per task.
  const foldOptions: MetricFoldOptions = {
    toolLabel: toolLabeler(options.toolNames),
    ...(options.providerName === undefined ? {} : { providerName: options.providerName }),
  };
  const tasks = new Map<string, TaskMetrics>();
  // The task of the last event: the next one is most often of the same task.
  let lastId: string | undefined;
  let lastTask: TaskMetrics | undefined;
  const work = background(onError);
  const { report, track } = work;

  // Each measurement straight onto its instrument: no `Measurement` made, the fold's attribute sets shared.
  const record: RecordMeasurement = (metric, value, attributes) => {
    try {
      instruments.recordValue(metric, value, attributes);
    } catch (error) {
      report(error);
    }
  };
  const apply = (task: TaskMetrics, event: StoredEvent, live: boolean) => {
    task.fold.record(event, live ? record : undefined);
    task.next = event.seq + 1;
  };

  const pump = (taskId: string, task: TaskMetrics) => {
    while (!task.filling) {
      const event = task.queue[0];
      if (event === undefined) return;
      if (event.seq < task.next) {
        task.queue.shift();
        continue;
      }
      if (event.seq > task.next && store !== undefined) {
        task.filling = true;
        track(fill(taskId, task, event.seq, store));
        return;
      }
      task.queue.shift();
      apply(task, event, true);
    }
  };

  const fill = async (taskId: string, task: TaskMetrics, upTo: number, from: Store) => {
    try {
      // One turn of the event loop first: an append of this process that resolved out of order
      // arrives live instead of being read (and then not counted anywhere).
      await new Promise((resolve) => setTimeout(resolve, 0));
      task.queue.sort((a, b) => a.seq - b.seq);
      const first = task.queue[0];
      if (first !== undefined && first.seq === task.next) return;
      const missing = await from.read(taskId, { afterSeq: task.next - 1, limit: upTo - task.next });
      for (const event of missing) if (event.seq >= task.next && event.seq < upTo) apply(task, event, false);
    } finally {
      // Whatever could not be read is skipped, not waited for.
      const head = task.queue[0];
      if (head === undefined || head.seq !== task.next) task.next = Math.max(task.next, upTo);
      task.filling = false;
      pump(taskId, task);
    }
  };

  const emit: Emit = (event: StreamEvent) => {
    try {
      // Ephemeral events (deltas, store retries) are not in the log.
      if (!("seq" in event)) return;
      let task = event.taskId === lastId ? lastTask : tasks.get(event.taskId);
      if (task === undefined) {
        task = { fold: new MetricFold(foldOptions), next: 1, queue: [], filling: false };
        tasks.set(event.taskId, task);
        // Bounded memory: the least recently used task is forgotten (its fold is rebuilt from the log).
        if (tasks.size > maxTasks) {
          for (const [id, old] of tasks) {
            if (id === event.taskId || old.filling || old.queue.length > 0) continue;
            tasks.delete(id);
            break;
          }
        }
      } else if (task !== lastTask) {
        // The most recently used task is already last in the map: only another one is moved.
        tasks.delete(event.taskId);
        tasks.set(event.taskId, task);
      }
      lastId = event.taskId;
      lastTask = task;
      // The usual case, the next event of a task with nothing waiting, needs no queue.
      if (!task.filling && task.queue.length === 0 && event.seq === task.next) apply(task, event, true);
      else {
        task.queue.push(event);
        pump(event.taskId, task);
      }
    } catch (error) {
      report(error);
    }
  };

  return {
    get tasks() {
      return tasks.size;
    },
    emit,
    async flush() {
      do await work.settle();
      while (work.busy);
    },
  };
}

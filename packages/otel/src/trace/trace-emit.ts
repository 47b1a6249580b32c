/**
 * The live tracer: an `emit` sink that folds each task's stored events as they arrive (the same
 * fold `traceTask` uses) and exports each span when the event that ends it arrives.
 *
 * A leg emits only what is appended while it runs: `task_created`, and what others wrote while the
 * task was parked (an approval, a steer), reach it only through the store. So when an event's
 * `seq` skips ahead, the tracer reads the missing events from `store` first and folds them too;
 * a span that one of those read events ended was ended in some other process's view (its own
 * tracer exported it), so it is not exported again here. Span ids follow from the task, so what
 * several processes export forms one trace.
 */
import type { Emit, HarnessOptions, Store, StoredEvent, StreamEvent } from "@sema-agent/core";
import { exportSpans } from "../export/export-spans.ts";
import { toReadableSpan } from "../export/readable-span.ts";
import { callTraceparent, placementOf } from "../export/trace-placement.ts";
import { background } from "../sink/background.ts";
import { SpanFold } from "../spans/span-fold.ts";
import type { SpanRecord } from "../spans/span-record.ts";
import { resolveTraceOptions, type TraceOptions } from "./trace-options.ts";

/** The live tracer's options: the trace options and the store the gaps are read from. */
export interface TraceEmitOptions extends TraceOptions {
  /** Where events the sink never saw are read from. Without it a gap is folded as it is. */
  store?: Store;
  /** Called when an export or a gap's read fails (tracing never fails a leg). Default: ignored. */
  onError?: (error: unknown) => void;
}

/** An `emit` sink that traces, with a way to wait for its exports. */
export interface TraceEmit {
  /** How many tasks it holds state for (a task is forgotten once its span ends). */
  readonly tasks: number;
  /** The sink: pass it as `HarnessOptions.emit` (it never throws). */
  emit: Emit;
  /**
   * What to spread into the harness's options: `emit`, `childEmit` (children run inside a leg are
   * traced too) and, with a `store`, `traceparentOf` (`callTraceparent`), so a tool call's A2A or
   * MCP requests carry its span: `runLeg({ store, agent, ...tracer.harness }, taskId)`.
   */
  readonly harness: Pick<HarnessOptions, "emit" | "childEmit" | "traceparentOf">;
  /** Exports the spans ended so far now, and resolves when every read and export has settled. */
  flush(): Promise<void>;
}

/** The longest gap in a task's events read at once, on the leg's path; a longer one waits a turn. */
const INLINE_GAP = 64;

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The most spans one export call carries: the SDK's `BatchSpanProcessor` default. */
const MAX_BATCH = 512;

interface TaskTrace {
  fold: SpanFold;
  next: number;
  queue: StoredEvent[];
  filling: boolean;
}

/** Whether `event` is a child's `task_created`, whose trace must be read from its ancestors first. */
function needsPlacement(event: StoredEvent): event is Extract<StoredEvent, { type: "task_created" }> {
  return event.type === "task_created" && event.parentTaskId !== undefined && event.traceContext === undefined;
}

/** Builds the live tracer (see the module's note). */
export function traceEmit(options: TraceEmitOptions): TraceEmit {
  const { store, onError, ...rest } = options;
  const resolved = resolveTraceOptions(rest, "traceEmit");
  const tasks = new Map<string, TaskTrace>();
  const work = background(onError);
  const { report, track } = work;

  // Ended spans are batched and exported once per turn of the event loop, not one call per
  // event: an exporter call has a fixed cost (the in-memory one alone sets a timer per call).
  // A leg whose model and tools answer at once never lets the loop turn, so a batch is also sent
  // when it is full, and when a task's span ends (its trace is then complete, and a host that
  // runs such tasks back to back would otherwise export them all only when it idles).
  let batch: SpanRecord[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const drain = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const spans = batch;
    batch = [];
    if (spans.length > 0)
      track(
        exportSpans(
          resolved.exporter,
          spans.map((span) => toReadableSpan(span, resolved.resource)),
        ),
      );
  };
  const apply = (trace: TaskTrace, event: StoredEvent, live: boolean) => {
    const ended = trace.fold.add(event);
    trace.next = event.seq + 1;
    if (ended.length === 0) return;
    let rootEnded = false;
    for (const span of ended) {
      if (live) batch.push(span);
      if (span.parentKey === undefined) rootEnded = true;
    }
    if (live) {
      if (rootEnded || batch.length >= MAX_BATCH) drain();
      else timer ??= setTimeout(drain, 0);
    }
    // The task's span has ended: forget the task, so a long-lived host holds no state per task
    // ever run. A wake after the end starts afresh, reading the log (its old spans not re-sent).
    if (rootEnded && tasks.get(event.taskId) === trace) tasks.delete(event.taskId);
  };

  const pump = (taskId: string, trace: TaskTrace) => {
    while (!trace.filling) {
      const event = trace.queue[0];
      if (event === undefined) return;
      if (event.seq < trace.next) {
        trace.queue.shift();
        continue;
      }
      if (event.seq > trace.next && store !== undefined) {
        trace.filling = true;
        // A long gap (a task met in the middle of its log: woken or resumed in another process, or
        // woken after its end, when it was forgotten) is read and folded on a later turn of the
        // event loop, not on the leg's path: its events wait in the queue meanwhile. A short one
        // (the task's creation before its first leg, what arrived while it was parked) at once.
        const read = () => fill(taskId, trace, event.seq, store);
        track(event.seq - trace.next > INLINE_GAP ? nextTurn().then(read) : read());
        return;
      }
      if (needsPlacement(event) && store !== undefined) {
        trace.filling = true;
        track(placeThen(taskId, trace, event, store));
        return;
      }
      trace.queue.shift();
      apply(trace, event, true);
    }
  };

  // A child's task_created waits for its ancestors' trace (read once per task, then remembered).
  const place = async (trace: TaskTrace, event: Extract<StoredEvent, { type: "task_created" }>, from: Store) => {
    try {
      trace.fold.place(await placementOf(from, event));
    } catch (error) {
      report(error);
    }
  };

  const placeThen = async (
    taskId: string,
    trace: TaskTrace,
    event: Extract<StoredEvent, { type: "task_created" }>,
    from: Store,
  ) => {
    try {
      await place(trace, event, from);
      if (trace.queue[0] === event) trace.queue.shift();
      if (event.seq === trace.next) apply(trace, event, true);
    } finally {
      trace.filling = false;
      pump(taskId, trace);
    }
  };

  const fill = async (taskId: string, trace: TaskTrace, upTo: number, from: Store) => {
    try {
      const missing = await from.read(taskId, { afterSeq: trace.next - 1, limit: upTo - trace.next });
      for (const event of missing) {
        if (event.seq < trace.next || event.seq >= upTo) continue;
        if (needsPlacement(event)) await place(trace, event, from);
        apply(trace, event, false);
      }
    } finally {
      // Whatever could not be read is skipped, not waited for.
      trace.next = Math.max(trace.next, upTo);
      trace.filling = false;
      pump(taskId, trace);
    }
  };

  const emit: Emit = (event: StreamEvent) => {
    try {
      // Ephemeral events (deltas, store retries) are not in the log, so not in the trace either.
      if (!("seq" in event)) return;
      let trace = tasks.get(event.taskId);
      if (trace === undefined) {
        trace = { fold: new SpanFold(resolved.fold), next: 1, queue: [], filling: false };
        tasks.set(event.taskId, trace);
      }
      // The usual case, the next event with nothing queued or being read, skips the queue.
      if (event.seq === trace.next && !trace.filling && trace.queue.length === 0) apply(trace, event, true);
      else {
        trace.queue.push(event);
        pump(event.taskId, trace);
      }
    } catch (error) {
      report(error);
    }
  };

  const harness: TraceEmit["harness"] =
    store === undefined ? { emit, childEmit: emit } : { emit, childEmit: emit, traceparentOf: callTraceparent(store) };
  return {
    get tasks() {
      return tasks.size;
    },
    emit,
    harness,
    async flush() {
      // A read that settles may fold queued events that end more spans: drain until nothing is left.
      do {
        drain();
        await work.settle();
      } while (work.busy || batch.length > 0);
    },
  };
}

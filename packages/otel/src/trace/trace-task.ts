/** Rebuilds a task's trace from its log and exports it: any task that ever ran, live or long done. */
import type { Store } from "@sema-agent/core";
import { exportSpans } from "../export/export-spans.ts";
import { toReadableSpan } from "../export/readable-span.ts";
import { placementOf } from "../export/trace-placement.ts";
import { foldSpans } from "../spans/span-fold.ts";
import type { SpanRecord } from "../spans/span-record.ts";
import { resolveTraceOptions, type TraceOptions } from "./trace-options.ts";

/**
 * Reads the task's whole log, folds it into spans with the stored timestamps and exports them
 * through `options.exporter`. Spans still open (a parked or running task) end at the last event
 * and carry `sema.span.open`. A child task's spans are in its parent's trace (its ancestors'
 * `task_created` are read too). Resolves with the records exported.
 */
export async function traceTask(store: Store, taskId: string, options: TraceOptions): Promise<SpanRecord[]> {
  const resolved = resolveTraceOptions(options, "traceTask");
  const events = await store.read(taskId);
  const first = events[0];
  // A child's trace is its parent's: read from its ancestors' task_created.
  const placement = first?.type === "task_created" ? await placementOf(store, first) : undefined;
  const spans = foldSpans(events, resolved.fold, placement);
  await exportSpans(
    resolved.exporter,
    spans.map((span) => toReadableSpan(span, resolved.resource)),
  );
  return spans;
}

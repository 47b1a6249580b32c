/** Rebuilds a task's trace from its log and exports it: any task that ever ran, live or long done. */
import type { Store } from "@sema-agent/core";
import { exportSpans } from "../export/export-spans.ts";
import { toReadableSpan } from "../export/readable-span.ts";
import { foldSpans } from "../spans/span-fold.ts";
import type { SpanRecord } from "../spans/span-record.ts";
import { resolveTraceOptions, type TraceOptions } from "./trace-options.ts";

/**
 * Reads the task's whole log, folds it into spans with the stored timestamps and exports them
 * through `options.exporter`. Spans still open (a parked or running task) end at the last event
 * and carry `sema.span.open`. Resolves with the records exported.
 */
export async function traceTask(store: Store, taskId: string, options: TraceOptions): Promise<SpanRecord[]> {
  const resolved = resolveTraceOptions(options, "traceTask");
  const spans = foldSpans(await store.read(taskId), resolved.fold);
  await exportSpans(
    resolved.exporter,
    spans.map((span) => toReadableSpan(span, resolved.resource)),
  );
  return spans;
}

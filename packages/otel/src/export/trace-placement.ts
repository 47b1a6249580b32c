/**
 * Where a task's trace hangs, from log facts alone. A task started with a caller's trace context
 * (`task_created.traceContext`) is in the caller's trace, its root a child of the caller's span. A
 * child task is in its parent's trace, its root a child of the parent's `execute_tool` span of the
 * delegating call (`delegate:<callId>`, the call id the child records in its metadata), or of the
 * parent's task span for a child started from host code. Any other task's trace is its own.
 *
 * A child's trace is its root ancestor's, so finding it reads each ancestor's `task_created`
 * (one event each) through the store; the answer never changes, so it is remembered per store.
 */
import type { Store, StoredEvent } from "@sema-agent/core";
import { spanIdOf, traceIdOf } from "./span-ids.ts";

type TaskCreated = Extract<StoredEvent, { type: "task_created" }>;

/** Where a task's root span hangs: its trace and, when not its own, its parent span there. */
export interface TracePlacement {
  /** The trace every span of the task is in. */
  traceId: string;
  /** The root's parent span, outside the task (absent: the root starts the trace). */
  parentSpanId?: string;
}

/** The trace id and span id of a recorded W3C `traceparent` (validated when it was recorded). */
export function traceparentIds(traceparent: string): { traceId: string; spanId: string } | undefined {
  const [, traceId, spanId] = traceparent.split("-");
  return traceId?.length === 32 && spanId?.length === 16 ? { traceId, spanId } : undefined;
}

/** The key of the span of a delegating call in its parent's trace. */
export function delegateKey(callId: string): string {
  return `delegate:${callId}`;
}

/** The call id a delegated child records (`metadata.callId`), if it is one. */
function callIdOf(created: TaskCreated): string | undefined {
  const callId = created.metadata?.callId;
  return typeof callId === "string" && callId !== "" ? callId : undefined;
}

/**
 * The placement `task_created` decides by itself (a caller's context, or none and no parent), or
 * undefined for a child, whose trace is its parent's.
 */
export function ownPlacement(created: TaskCreated): TracePlacement | undefined {
  const ids = created.traceContext === undefined ? undefined : traceparentIds(created.traceContext.traceparent);
  if (ids !== undefined) return { traceId: ids.traceId, parentSpanId: ids.spanId };
  if (created.parentTaskId === undefined) return { traceId: traceIdOf(created.taskId) };
  return undefined;
}

/** A child's placement once its parent's trace id is known. */
export function childPlacement(created: TaskCreated, parentTraceId: string): TracePlacement {
  const parent = created.parentTaskId ?? created.taskId;
  const callId = callIdOf(created);
  return {
    traceId: parentTraceId,
    parentSpanId: spanIdOf(parent, callId === undefined ? "task" : delegateKey(callId)),
  };
}

const MAX_DEPTH = 32;
const CACHE_LIMIT = 10_000;
const caches = new WeakMap<Store, Map<string, Promise<string>>>();

/**
 * The trace id of task `taskId`, reading its `task_created` and its ancestors' through `store`
 * (remembered per store). A task whose first event cannot be read is taken as its own trace.
 */
export function traceIdOfTask(store: Store, taskId: string, depth = 0): Promise<string> {
  let cache = caches.get(store);
  if (cache === undefined) {
    cache = new Map();
    caches.set(store, cache);
  }
  const known = cache.get(taskId);
  if (known !== undefined) return known;
  const found = (async () => {
    const [first] = await store.read(taskId, { limit: 1 });
    if (first?.type !== "task_created") return traceIdOf(taskId);
    const own = ownPlacement(first);
    if (own !== undefined) return own.traceId;
    // A parent chain that loops (a forged log) ends somewhere rather than never.
    if (depth >= MAX_DEPTH || first.parentTaskId === undefined) return traceIdOf(taskId);
    return traceIdOfTask(store, first.parentTaskId, depth + 1);
  })();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(taskId, found);
  // A failed read is not remembered: the next trace of the task asks again.
  found.catch(() => {
    if (cache.get(taskId) === found) cache.delete(taskId);
  });
  return found;
}

/** The placement of the task whose first event is `created`, reading its ancestors when it is a child. */
export async function placementOf(store: Store | undefined, created: TaskCreated): Promise<TracePlacement> {
  const own = ownPlacement(created);
  if (own !== undefined) return own;
  const parent = created.parentTaskId ?? created.taskId;
  // Without a store a child's parent trace is unknown: it is taken as the parent's own.
  const traceId = store === undefined ? traceIdOf(parent) : await traceIdOfTask(store, parent);
  return childPlacement(created, traceId);
}

/**
 * The W3C `traceparent` of a running tool call's `execute_tool` span, from the log facts: the
 * task's trace and the span the call's `tool_call_started` (at `seq`) opens. For
 * `HarnessOptions.traceparentOf`, so a tool that calls another service (A2A, MCP) carries it.
 */
export function callTraceparent(store: Store): (call: { taskId: string; seq: number }) => Promise<string> {
  return async (call) =>
    `00-${await traceIdOfTask(store, call.taskId)}-${spanIdOf(call.taskId, `tool:${call.seq}`)}-01`;
}

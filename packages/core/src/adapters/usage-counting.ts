/**
 * The rules every store's usage counters follow (`Store.usage`, quotas): which appended events
 * move a counter and into which bucket, and which tasks are active. Kept here so the memory, SQLite
 * and PostgreSQL stores count alike; the conformance suite checks the result.
 */
import type { TaskRecord, UsageBucket } from "../ports/store.ts";
import type { TaskEvent } from "../protocol/task-event.ts";
import type { Usage } from "../protocol/usage.ts";

const HOUR_MS = 3_600_000;

/** The start of the UTC hour that contains `ms`. */
export function hourStartMs(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/**
 * What an append adds to the counters: one delta per model of the `model_turn` events (and the
 * `tool_result`s that carry a tool's own model usage) among
 * `events`, all in the bucket of the hour of `atMs` (the store's stamp). `taskModel` is the model
 * on the task's `task_created`, for turns that name none. Empty when the append has no turn.
 */
export function usageDeltas(events: readonly TaskEvent[], taskModel: string | undefined, atMs: number): UsageBucket[] {
  const byModel = new Map<string, UsageBucket>();
  const hour = new Date(hourStartMs(atMs)).toISOString();
  for (let i = firstCounted(events); i < events.length; i++) {
    const event = events[i] as TaskEvent;
    const counted = countedUsage(event);
    if (counted === undefined) continue;
    const model = counted.model ?? taskModel ?? "";
    const bucket = byModel.get(model) ?? {
      hour,
      model,
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      turns: 0,
    };
    bucket.inputTokens += counted.usage.inputTokens;
    bucket.cachedInputTokens += counted.usage.cachedInputTokens ?? 0;
    bucket.outputTokens += counted.usage.outputTokens;
    if (event.type === "model_turn") bucket.turns += 1;
    byModel.set(model, bucket);
  }
  return [...byModel.values()];
}

/**
 * What an event spent on models: a turn's usage, or a tool's own calls' (`tool_result` v 2, a
 * quarantined reader's, counted in tokens but not as a turn).
 */
function countedUsage(event: TaskEvent): { usage: Usage; model: string | undefined } | undefined {
  if (event.type === "model_turn") return { usage: event.usage, model: event.model };
  if (event.type === "tool_result" && event.usage !== undefined) return { usage: event.usage, model: event.model };
  return undefined;
}

/**
 * Where an append's counted turns begin: after its `task_forked`, if it has one. The turns before
 * it are a fork's (or an import's) copy of another log: spent once, by the source, never again.
 */
function firstCounted(events: readonly TaskEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]?.type === "task_forked") return i + 1;
  return 0;
}

/** Whether any event of an append moves a usage counter (so a store reads the task's model only then). */
export function movesUsage(events: readonly TaskEvent[]): boolean {
  for (let i = firstCounted(events); i < events.length; i++)
    if (countedUsage(events[i] as TaskEvent) !== undefined) return true;
  return false;
}

/** Add `delta` into `into` (same hour and model). */
export function addBucket(into: UsageBucket, delta: UsageBucket): void {
  into.inputTokens += delta.inputTokens;
  into.cachedInputTokens += delta.cachedInputTokens;
  into.outputTokens += delta.outputTokens;
  into.turns += delta.turns;
}

/**
 * Whether a task counts against its principal's `concurrentTasks`: a root task that is created
 * and not started yet, or whose leg runs. A parked task waits for something and holds no slot.
 */
export function isActiveTask(record: Pick<TaskRecord, "parentTaskId" | "summary">): boolean {
  if (record.parentTaskId !== undefined) return false;
  return record.summary.status === "created" || record.summary.status === "running";
}

/** The SQL condition of {@link isActiveTask} over a `status` and a `parent_task_id` column. */
export const ACTIVE_TASK_SQL = "parent_task_id IS NULL AND status IN ('created', 'running')";

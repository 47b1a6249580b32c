/**
 * Online scores (docs/guide/evals.md#online-scores): when a leg ends its task (completed or
 * failed), the agent's scorers run on a share of its tasks and their verdicts are recorded on the
 * task as `task_scored`, while the leg still holds its lease, so its event sink (a tracer, a
 * stream) sees them. Best effort: a scorer that fails records nothing, and neither it nor a store
 * error changes the task's outcome; a host that dies before scoring leaves the task unscored
 * (`scoreTask` scores it later).
 */
import type { Store } from "../../ports/store.ts";
import type { Emit } from "../../protocol/stream-event.ts";
import type { TaskStatus } from "../../protocol/task-summary.ts";
import type { Agent } from "../agent.ts";
import { scoreTask } from "../scoring/score-task.ts";

/**
 * Whether `taskId` is among the share `rate` of tasks scored: FNV-1a of the id, as a fraction of
 * 2^32, below the rate. A function of the id alone, so every process and every retry agree.
 */
export function isSampled(taskId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  let hash = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i++) {
    hash ^= taskId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 2 ** 32 < rate;
}

/** Score the task the leg just ended, if the agent asks for online scores and the task is sampled. */
export async function scoreOnline(
  store: Store,
  agent: Agent,
  taskId: string,
  status: TaskStatus,
  emit: Emit,
  signal: AbortSignal,
): Promise<void> {
  const scoring = agent.scoring;
  if (scoring === undefined || (status !== "completed" && status !== "failed")) return;
  if (!isSampled(taskId, scoring.sampleRate ?? 1)) return;
  try {
    const before = (await store.getTask(taskId)).lastSeq;
    await scoreTask(store, taskId, scoring.scorers, { signal });
    for (const event of await store.read(taskId, { afterSeq: before })) if (event.type === "task_scored") emit(event);
  } catch {
    // Best effort (see the module comment): the task has ended as it ended.
  }
}

/**
 * The legs running in this process, by lease holder and task. A store lets a holder take a task's
 * lease again (so a process can reclaim a lease it left behind), which would let a second `runLeg`
 * of a task already running here take the lease from under the first. Checked here first, a second
 * leg in this process is refused with `LeaseHeld`, exactly as one from another process is.
 */
import type { Store } from "../../ports/store.ts";
import { LeaseHeldError } from "../../protocol/errors.ts";

const running = new Map<string, Set<string>>();

/**
 * Claim the right to run `taskId` as `holderId` in this process, synchronously (so two calls in
 * the same tick cannot both get it). Returns the release, or undefined when a leg runs here already.
 */
export function enterLegHere(holderId: string, taskId: string): (() => void) | undefined {
  let tasks = running.get(holderId);
  if (tasks?.has(taskId) === true) return undefined;
  if (tasks === undefined) {
    tasks = new Set();
    running.set(holderId, tasks);
  }
  tasks.add(taskId);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    tasks.delete(taskId);
    if (tasks.size === 0) running.delete(holderId);
  };
}

/**
 * The error for a task whose leg runs in this process already, with the lease as stored (none
 * stored: held until now, by the harness's `clock`).
 */
export async function leaseHeldHere(
  store: Store,
  taskId: string,
  holderId: string,
  clock: () => number,
): Promise<LeaseHeldError> {
  const lease = (await store.getTask(taskId)).lease;
  const until = lease?.expiresAt ?? new Date(clock()).toISOString();
  return new LeaseHeldError(taskId, lease?.holder ?? { id: holderId }, until);
}

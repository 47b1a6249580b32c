/**
 * Taking a task's lease to run a leg. A lease whose holder was a process in this same process
 * table that no longer exists (`holderDiedHere`) is taken over at once: waiting for the expiry
 * would only delay. Any other live lease is refused with `LeaseHeld`, which says until when.
 */
import { hostname } from "node:os";
import type { Lease, Store, TaskRecord } from "../../ports/store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import type { LeaseHolder } from "../../protocol/task-event.ts";
import { defaultHolder } from "../agent.ts";
import { holderDiedHere } from "./process-space.ts";

export async function acquireLeg(
  store: Store,
  taskId: string,
  holder: LeaseHolder | undefined,
  ttlMs: number,
): Promise<Lease> {
  const me = holder ?? defaultHolder();
  try {
    return await store.acquireLease(taskId, { holder: me, ttlMs });
  } catch (error) {
    if (!isSemaError(error, "LeaseHeld")) throw error;
    const current = (await store.getTask(taskId)).lease?.holder;
    if (current === undefined || !holderDiedHere(current)) throw error;
    return store.acquireLease(taskId, { holder: me, ttlMs, replaceHolderId: current.id });
  }
}

/**
 * Tasks whose live lease was held by a process in this process table that no longer exists: a
 * host crashed mid-leg. A worker starting here runs them at once (`runLeg`, which takes such a
 * lease over) instead of waiting up to a lease's time to live.
 */
export async function tasksOfDeadHoldersHere(store: Store, limit = 100): Promise<TaskRecord[]> {
  const leased = await store.listLeasedOn(hostname(), { limit });
  return leased.filter((record) => record.lease !== undefined && holderDiedHere(record.lease.holder));
}

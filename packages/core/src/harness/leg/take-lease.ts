/**
 * Taking a task's lease to run a leg. A lease whose holder the host knows to be dead
 * (`holderDied`, e.g. `holderDiedHere` of `@sema-agent/core/node`: a process in this same process
 * table that no longer exists) is taken over at once: waiting for the expiry would only delay. Any
 * other live lease is refused with `LeaseHeld`, which says until when; without `holderDied` a
 * lease is always waited out.
 */
import type { Lease, Store } from "../../ports/store.ts";
import { isSemaError } from "../../protocol/errors.ts";
import type { LeaseHolder } from "../../protocol/task-event.ts";
import { defaultHolder } from "../agent.ts";

export async function acquireLeg(
  store: Store,
  taskId: string,
  holder: LeaseHolder | undefined,
  ttlMs: number,
  holderDied?: (holder: LeaseHolder) => boolean,
): Promise<Lease> {
  const me = holder ?? defaultHolder();
  try {
    return await store.acquireLease(taskId, { holder: me, ttlMs });
  } catch (error) {
    if (!isSemaError(error, "LeaseHeld")) throw error;
    const current = (await store.getTask(taskId)).lease?.holder;
    if (current === undefined || holderDied === undefined || !holderDied(current)) throw error;
    return store.acquireLease(taskId, { holder: me, ttlMs, replaceHolderId: current.id });
  }
}

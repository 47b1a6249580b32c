/**
 * Taking a task's lease to run a leg. A lease held by a process on this same machine that no
 * longer exists is taken over at once (its holder died; waiting for the expiry would only delay);
 * any other live lease is refused with `LeaseHeld`, which says how long until it expires.
 */
import { hostname } from "node:os";
import type { Lease, Store } from "../ports/store.ts";
import { isSemaError } from "../protocol/errors.ts";
import type { LeaseHolder } from "../protocol/task-event.ts";
import { defaultHolder } from "./agent.ts";

/** Whether a process with this pid is alive on this machine. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

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
    const deadHere =
      current?.host === hostname() &&
      current.pid !== undefined &&
      current.pid !== process.pid &&
      !processAlive(current.pid);
    if (current === undefined || !deadHere) throw error;
    return store.acquireLease(taskId, { holder: me, ttlMs, replaceHolderId: current.id });
  }
}

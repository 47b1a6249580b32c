/**
 * The lease identity of a Node process: host name, pid and process table, so that a host on the
 * same machine can tell that a holder died and take its lease over at once (design §1, the rings:
 * the harness itself knows no pid; a Node host hands it these).
 */
import { hostname } from "node:os";
import { newId } from "../internal/ids.ts";
import type { Store, TaskRecord } from "../ports/store.ts";
import type { LeaseHolder } from "../protocol/task-event.ts";
import { holderDiedHere, processSpace } from "./process-space.ts";

let processHolder: LeaseHolder | undefined;

/** This process's holder identity: stable for its lifetime, unique across processes. */
export function nodeHolder(): LeaseHolder {
  processHolder ??= {
    id: `${hostname()}:${process.pid}:${newId().slice(-8)}`,
    host: hostname(),
    pid: process.pid,
    space: processSpace(),
  };
  return processHolder;
}

/** What a Node host passes to `runLeg` (spread into its options): who it is, and how to tell a dead holder here. */
export interface NodeHost {
  holder: LeaseHolder;
  /**
   * True when `holder` was a process on this machine (same host, same process space) that no longer
   * exists, so its live lease may be taken over at once instead of waited out.
   */
  holderDied: (holder: LeaseHolder) => boolean;
}

/**
 * `{ holder: nodeHolder(), holderDied: holderDiedHere }`: with it, `runLeg` takes over at once the
 * lease of a crashed process on this machine instead of waiting for it to expire.
 */
export function nodeHost(): NodeHost {
  return { holder: nodeHolder(), holderDied: holderDiedHere };
}

/**
 * Tasks whose live lease was held by a process in this process table that no longer exists: a
 * host crashed mid-leg. A worker starting here runs them at once (`runLeg` with `nodeHost()`,
 * which takes such a lease over) instead of waiting up to a lease's time to live.
 */
export async function tasksOfDeadHoldersHere(store: Store, limit = 100): Promise<TaskRecord[]> {
  const leased = await store.listLeasedOn(hostname(), { limit });
  return leased.filter((record) => record.lease !== undefined && holderDiedHere(record.lease.holder));
}

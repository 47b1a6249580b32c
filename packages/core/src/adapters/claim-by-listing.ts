/**
 * `claimRunnable` for stores whose lease acquisition is already atomic per task (one process's
 * memory, one SQLite file): list the runnable tasks, then take each lease, skipping the ones a
 * racing worker took first. PostgreSQL claims in one statement with `FOR UPDATE SKIP LOCKED`.
 */
import type { Claim, ClaimOptions, Store } from "../ports/store.ts";
import { isSemaError } from "../protocol/errors.ts";
import { fairListing, fairOrder } from "./fair-claims.ts";
import { assertLimit, assertTtl } from "./store-rules.ts";

/** Extra candidates listed beyond `limit`, so tasks a racing worker takes leave others to claim. */
const HEADROOM = 8;

/**
 * `claimRunnable` built from `listRunnable` and `acquireLease`, for a store whose lease acquisition
 * is atomic per task: lists a few more candidates than `limit` (fairly, when asked), takes each lease
 * and skips the tasks a racing worker took first.
 */
export async function claimByListing(
  store: Pick<Store, "listRunnable" | "acquireLease" | "getTask">,
  options: ClaimOptions,
): Promise<Claim[]> {
  const limit = assertLimit(options.limit, 1, 1000);
  assertTtl(options.ttlMs);
  const exclude = new Set(options.exclude ?? []);
  const { fairness } = options;
  const candidates =
    fairness === undefined
      ? await store.listRunnable({ limit: Math.min(10_000, limit * 2 + HEADROOM + exclude.size) })
      : fairOrder(
          (await store.listRunnable(fairListing(limit, fairness, exclude.size))).filter(
            (candidate) => !exclude.has(candidate.taskId),
          ),
          fairness,
        );
  const claims: Claim[] = [];
  for (const candidate of candidates) {
    if (claims.length === limit) break;
    if (exclude.has(candidate.taskId)) continue;
    try {
      // A live lease of this same holder would be taken again: that is not a claim of a runnable task.
      const lease = await store.acquireLease(candidate.taskId, { holder: options.holder, ttlMs: options.ttlMs });
      claims.push({ task: await store.getTask(candidate.taskId), lease });
    } catch (error) {
      if (!isSemaError(error, "LeaseHeld")) throw error;
    }
  }
  return claims;
}

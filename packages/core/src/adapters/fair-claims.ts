/**
 * The order in which a fair claim (`ClaimOptions.fairness`) takes runnable tasks, for every store:
 * the candidates are listed a few per principal (`ListRunnableOptions.perPrincipal`), so a
 * principal with a flood of old tasks cannot hide another's newer one, then interleaved here.
 */
import type { ClaimFairness, ListRunnableOptions, TaskRecord } from "../ports/store.ts";

/** Candidates listed per principal beyond the claim's limit, for those a racing worker takes. */
const HEADROOM = 8;

/** What `principal` holds; own properties only (a principal may be called "__proto__"). */
function heldBy(fairness: ClaimFairness, principal: string): number {
  const held = fairness.held;
  const count = held !== undefined && Object.hasOwn(held, principal) ? held[principal] : undefined;
  return typeof count === "number" && count > 0 ? count : 0;
}

/** How to list the candidates of a fair claim of up to `limit` tasks. */
export function fairListing(limit: number, fairness: ClaimFairness, exclude: number): Required<ListRunnableOptions> {
  const max = fairness.maxPerPrincipal;
  const held = Object.keys(fairness.held ?? {});
  const full = max === undefined ? [] : held.filter((principal) => heldBy(fairness, principal) >= max);
  return { limit: 10_000, perPrincipal: Math.min(10_000, limit * 2 + HEADROOM + exclude), excludePrincipals: full };
}

/**
 * `candidates` (in the runnable order, people first) in the order a fair claim takes them: each next one
 * from the principal with the fewest held so far, the one whose next candidate is oldest among
 * equals; principals at `maxPerPrincipal` are passed over.
 */
export function fairOrder(candidates: readonly TaskRecord[], fairness: ClaimFairness): TaskRecord[] {
  const max = fairness.maxPerPrincipal ?? Number.POSITIVE_INFINITY;
  const queues = new Map<string, { held: number; next: number; tasks: TaskRecord[]; ages: number[] }>();
  candidates.forEach((task, age) => {
    let queue = queues.get(task.principal);
    if (queue === undefined) {
      queue = { held: heldBy(fairness, task.principal), next: 0, tasks: [], ages: [] };
      queues.set(task.principal, queue);
    }
    queue.tasks.push(task);
    queue.ages.push(age);
  });
  const order: TaskRecord[] = [];
  for (;;) {
    let best: { held: number; next: number; tasks: TaskRecord[]; ages: number[] } | undefined;
    for (const queue of queues.values()) {
      if (queue.next >= queue.tasks.length || queue.held >= max) continue;
      if (
        best === undefined ||
        queue.held < best.held ||
        (queue.held === best.held && (queue.ages[queue.next] ?? 0) < (best.ages[best.next] ?? 0))
      )
        best = queue;
    }
    const task = best?.tasks[best.next];
    if (best === undefined || task === undefined) return order;
    order.push(task);
    best.next += 1;
    best.held += 1;
  }
}

/** `records` (least recently active first) cut to `options`' limits per principal and in total. */
export function limitPerPrincipal(
  records: Iterable<TaskRecord>,
  options: ListRunnableOptions,
  limit: number,
): TaskRecord[] {
  const per = options.perPrincipal ?? Number.POSITIVE_INFINITY;
  const excluded = new Set(options.excludePrincipals ?? []);
  const counts = new Map<string, number>();
  const kept: TaskRecord[] = [];
  for (const record of records) {
    if (kept.length >= limit) break;
    if (excluded.has(record.principal)) continue;
    const count = counts.get(record.principal) ?? 0;
    if (count >= per) continue;
    counts.set(record.principal, count + 1);
    kept.push(record);
  }
  return kept;
}

/** Small helpers the store conformance suites share. */
import type { Store } from "../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Shortens a held lease to a moment and waits until it has lapsed, past the expiry the store
 * reported. A PostgreSQL store keeps the database's time, so the suite cannot inject a clock: the
 * leases it holds are taken with terms that stay live on a loaded machine, and only the lapse is
 * waited for (a late timer only waits longer).
 */
export async function letLapse(store: Store, taskId: string, token: string): Promise<void> {
  const short = await store.renewLease(taskId, token, 50);
  await sleep(Math.max(0, Date.parse(short.expiresAt) - Date.now()) + 60);
}

export function seqs(events: StoredEvent[]): number[] {
  return events.map((event) => event.seq);
}

export function notes(prefix: string, n: number): TaskEvent[] {
  return Array.from({ length: n }, (_, i) => make.note(`${prefix}-${i}`));
}

export async function collect(
  iterable: AsyncIterable<StoredEvent>,
  count: number,
  timeoutMs = 5000,
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const timeout = sleep(timeoutMs).then(() => "timeout" as const);
  const iterator = iterable[Symbol.asyncIterator]();
  while (out.length < count) {
    const next = await Promise.race([iterator.next(), timeout]);
    if (next === "timeout") throw new Error(`watch delivered ${out.length} of ${count} events before the timeout`);
    if (next.done === true) break;
    out.push(next.value);
  }
  return out;
}

/** Small helpers the store conformance suites share. */
import type { Store } from "../ports/store.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` (every 10 ms, at most 1,000 times) until it holds. A PostgreSQL store keeps the
 * database's time, so the suite cannot inject a clock: what time does to a store is waited for as
 * the store itself reports it, never by a computed sleep.
 */
export async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt += 1) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error(`the store never showed ${what}`);
}

/** Whether the store lists `taskId` as runnable now. */
export async function listedRunnable(store: Store, taskId: string): Promise<boolean> {
  return (await store.listRunnable()).some((record) => record.taskId === taskId);
}

/**
 * Shortens a held lease to a moment and waits until the store treats it as lapsed (it lists the
 * task as runnable again). Leases the suite holds are taken with terms that stay live on a loaded
 * machine; only the lapse is waited for.
 */
export async function letLapse(store: Store, taskId: string, token: string): Promise<void> {
  await store.renewLease(taskId, token, 50);
  await eventually(`the lease of ${taskId} lapse`, () => listedRunnable(store, taskId));
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

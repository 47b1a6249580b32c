/** Small helpers the store conformance suites share. */
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";
import { make } from "./event-factories.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

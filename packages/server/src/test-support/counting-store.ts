/**
 * A store that counts what event streams take out of it: `watch` iterations started, and events
 * handed out by `read` and `watch` (a stream that replays the log reads it through one of them).
 */
import type { Store, StoredEvent } from "@sema-agent/core";

export interface StoreCounts {
  watches: number;
  reads: number;
  /** Events returned by `read` plus events yielded by `watch`. */
  eventsOut: number;
}

export function countingStore(store: Store): { store: Store; counts: StoreCounts } {
  const counts: StoreCounts = { watches: 0, reads: 0, eventsOut: 0 };
  const read: Store["read"] = async (...args) => {
    counts.reads++;
    const events = await store.read(...args);
    counts.eventsOut += events.length;
    return events;
  };
  const watch: Store["watch"] = (...args) => {
    counts.watches++;
    const inner = store.watch(...args);
    return {
      async *[Symbol.asyncIterator](): AsyncGenerator<StoredEvent> {
        for await (const event of inner) {
          counts.eventsOut++;
          yield event;
        }
      },
    };
  };
  // A proxy, not a prototype copy: the store's methods run on the store itself (private fields).
  const counted = new Proxy(store, {
    get(target, key) {
      if (key === "read") return read;
      if (key === "watch") return watch;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, counts };
}

/** Let pending work run until `measure` stops changing (for code that is either busy or idle). */
export async function settle(measure: () => number, quietTurns = 20): Promise<void> {
  let last = measure();
  for (let quiet = 0; quiet < quietTurns; ) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = measure();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/**
 * A `Store` wrapper whose connection can be cut: while `down`, every call fails with
 * `StoreUnavailable`, as a database failover looks to its clients; `commitThenFail` makes the
 * next appends commit and then report the failure, as a connection lost before the reply does.
 */
import type { Store } from "../ports/store.ts";
import { StoreUnavailableError } from "../protocol/errors.ts";

/**
 * A {@link Store} whose connection a test can cut (`down`) or make report failure after committing
 * (`commitThenFail`), made by {@link flakyStore}.
 */
export interface FlakyStore extends Store {
  /** While true, every call fails with `StoreUnavailable` (watches included). */
  down: boolean;
  /** This many of the next appends commit, then throw `StoreUnavailable`. */
  commitThenFail: number;
  /** Calls refused so far. */
  readonly refused: number;
}

/**
 * Wrap `inner` in a {@link FlakyStore}, up at first: for outage and failover tests of the harness
 * and hosts.
 */
export function flakyStore(inner: Store): FlakyStore {
  let refused = 0;
  const state = { down: false, commitThenFail: 0 };
  const unavailable = () => {
    refused++;
    return new StoreUnavailableError("the store is unreachable (simulated outage)");
  };
  const wrapped: Record<string, unknown> = {};
  for (const key of Object.getOwnPropertyNames(Object.getPrototypeOf(inner)) as Array<keyof Store>) {
    const method = inner[key];
    if (key === ("constructor" as keyof Store) || typeof method !== "function") continue;
    wrapped[key] = (...args: unknown[]) => {
      if (state.down && key !== "close") {
        const error = unavailable();
        if (key === "watch") {
          return (async function* () {
            yield* [];
            throw error;
          })();
        }
        return Promise.reject(error);
      }
      const result = (method as (...a: unknown[]) => unknown).apply(inner, args);
      if (key === "append" && state.commitThenFail > 0) {
        state.commitThenFail--;
        return (result as Promise<unknown>).then(() => {
          throw unavailable();
        });
      }
      return result;
    };
  }
  return Object.defineProperties(wrapped, {
    down: { get: () => state.down, set: (v: boolean) => (state.down = v), enumerable: true },
    commitThenFail: {
      get: () => state.commitThenFail,
      set: (n: number) => (state.commitThenFail = n),
      enumerable: true,
    },
    refused: { get: () => refused, enumerable: true },
  }) as unknown as FlakyStore;
}

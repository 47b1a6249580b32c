/**
 * A clock for tests that must pass a lease without sleeping for it: it jumps ahead when told, so
 * "the lease has lapsed" is a step of the test, whatever the machine's load. By default it also
 * runs with the wall clock (for a store whose harness reads `Date.now`); `withWallClock: false`
 * stands still between jumps, for a test that gives the same clock to the store and the harness
 * (`HarnessOptions.clock`).
 */
export interface JumpingClock {
  readonly now: () => number;
  /** Move the clock `ms` ahead, for good. */
  jump(ms: number): void;
}

export function jumpingClock(options: { withWallClock?: boolean } = {}): JumpingClock {
  let ahead = 0;
  const start = Date.now();
  const base = options.withWallClock === false ? () => start : () => Date.now();
  return {
    now: () => base() + ahead,
    jump(ms) {
      ahead += ms;
    },
  };
}

/**
 * A store clock for tests that must pass a lease without sleeping for it: it runs with the wall
 * clock (the harness's own lease renewal runs on real timers) and jumps ahead when told, so
 * "the lease has lapsed" is a step of the test, whatever the machine's load.
 */
export interface JumpingClock {
  readonly now: () => number;
  /** Move the clock `ms` ahead, for good. */
  jump(ms: number): void;
}

export function jumpingClock(): JumpingClock {
  let ahead = 0;
  return {
    now: () => Date.now() + ahead,
    jump(ms) {
      ahead += ms;
    },
  };
}

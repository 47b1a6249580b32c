/**
 * Catch-up work shared across one turn of the event loop. Streams catching up on a long log read
 * it a page at a time, and a store read and a socket that takes every write both resolve without
 * a turn of the loop; yielding once per page is not enough either, since with sixty streams one
 * turn then holds sixty pages (tens of MB). All catch-ups of a process draw their pages from one
 * budget per turn instead, so however many streams catch up at once, a turn stays short and other
 * requests are answered between turns. Live events do not pass through here.
 */

/** Resolve on the next turn of the event loop (after pending I/O), where there is one. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) =>
    typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0),
  );
}

/** Default catch-up bytes per turn of the event loop, all streams together. */
export const DEFAULT_CATCH_UP_BYTES_PER_TURN = 1024 * 1024;

export class CatchUpPacer {
  readonly #bytesPerTurn: number;
  #spent = 0;
  #resetQueued = false;

  constructor(bytesPerTurn = DEFAULT_CATCH_UP_BYTES_PER_TURN) {
    this.#bytesPerTurn = bytesPerTurn;
  }

  /**
   * Wait until this turn's budget has room, then take `bytes` of it (the size of the page about
   * to be read). A first page of a turn always proceeds, however large.
   */
  async take(bytes: number): Promise<void> {
    while (this.#spent >= this.#bytesPerTurn) await nextTurn();
    this.#spent += bytes;
    if (this.#resetQueued) return;
    this.#resetQueued = true;
    // Queued before any stream that waits from now on, so the next turn starts with a fresh budget.
    void nextTurn().then(() => {
      this.#spent = 0;
      this.#resetQueued = false;
    });
  }
}

/**
 * The end of an MCP session whose token was revoked: every wait of the session (progress, an
 * elicitation carrying a tool's input) stops at once and answers `Unauthorized`, and the session's
 * transport closes once those answers are out, so nothing of its tasks reaches the client after.
 */

/** Ends the waits of one session, then closes it. */
export class SessionEnd {
  readonly #controller = new AbortController();
  #waits = 0;
  #close: (() => void) | undefined;

  /** Aborted once the session's token is revoked. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Run a wait the end cuts short (it sees `signal`); the session closes after the last one. */
  async wait<T>(run: () => Promise<T>): Promise<T> {
    this.#waits += 1;
    try {
      return await run();
    } finally {
      this.#waits -= 1;
      if (this.#waits === 0) this.#closeSoon();
    }
  }

  /** The token was revoked: abort every wait, and `close` the session once they have answered. */
  end(close: () => void): void {
    if (this.#controller.signal.aborted) return;
    this.#close = close;
    this.#controller.abort();
    if (this.#waits === 0) this.#closeSoon();
  }

  #closeSoon(): void {
    const close = this.#close;
    if (close === undefined) return;
    this.#close = undefined;
    // After the current turn: the SDK sends a tool's answer once its handler has returned.
    setImmediate(close);
  }
}

/**
 * Steers that a new chat request takes the stream over for. `useChat` sends a message typed
 * during a run as a new request and reads the turn from its response; the stream of the earlier
 * request (in this process) ends where that steer enters the log, so the client reads the turn
 * once. Bounded: only recent steers matter, an old stream has long seen its own.
 */
const MAX_HANDOFFS = 1024;

export class ChatHandoffs {
  readonly #inputs = new Set<string>();

  /** A new request for `taskId` carries the input `inputId`. */
  mark(taskId: string, inputId: string): void {
    this.#inputs.add(`${taskId}\u0000${inputId}`);
    if (this.#inputs.size > MAX_HANDOFFS) {
      const [oldest] = this.#inputs;
      if (oldest !== undefined) this.#inputs.delete(oldest);
    }
  }

  has(taskId: string, inputId: string): boolean {
    return this.#inputs.has(`${taskId}\u0000${inputId}`);
  }
}

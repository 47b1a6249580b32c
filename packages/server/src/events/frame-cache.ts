/**
 * Recently sent stored frames by task and seq, bounded in bytes: clients catching up on the same
 * log (a crowd reconnecting, or opening one task) read the same events, each read yields new
 * objects, and serializing a large event for each of them is most of what a catch-up costs.
 * Least recently used entries go first.
 */
import type { StoredEvent } from "@sema-agent/core";
import { storedFrame } from "./sse-frame.ts";

export class FrameCache {
  readonly #frames = new Map<string, Uint8Array>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The frame of `event`, from the cache when another stream of this process made it. */
  frame(taskId: string, event: StoredEvent): Uint8Array {
    const key = `${taskId}\u0000${event.seq}`;
    const cached = this.#frames.get(key);
    if (cached !== undefined) {
      // Refresh its place: a Map iterates in insertion order, oldest first.
      this.#frames.delete(key);
      this.#frames.set(key, cached);
      return cached;
    }
    const frame = storedFrame(event);
    if (frame.byteLength > this.#maxBytes / 4) return frame;
    this.#frames.set(key, frame);
    this.#bytes += frame.byteLength;
    for (const [oldest, bytes] of this.#frames) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#frames.delete(oldest);
      this.#bytes -= bytes.byteLength;
    }
    return frame;
  }
}

/** Reading an SSE response in tests: frames as the wire has them. */

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Parse complete frames out of SSE text (a trailing partial frame is ignored). */
export function parseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  const blocks = text.split("\n\n");
  blocks.pop();
  for (const block of blocks) {
    const frame: SseFrame = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) frame.comment = line.slice(1).trim();
      else {
        const colon = line.indexOf(":");
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        if (field === "id" || field === "event" || field === "data" || field === "retry") frame[field] = value;
      }
    }
    frames.push(frame);
  }
  return frames;
}

/**
 * Read a streaming response until `until` says enough (or the stream ends), then cancel it.
 * Returns the frames read.
 */
export async function readFrames(
  response: Response,
  until: (frames: SseFrame[]) => boolean = () => false,
  timeoutMs = 5000,
): Promise<{ frames: SseFrame[]; ended: boolean }> {
  const body = response.body;
  if (body === null) return { frames: [], ended: true };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), remaining);
    });
    const next = await Promise.race([reader.read(), timeout]);
    clearTimeout(timer);
    if (next === "timeout") break;
    if (next.done) {
      ended = true;
      break;
    }
    text += decoder.decode(next.value, { stream: true });
    if (until(parseFrames(text))) break;
  }
  if (!ended) await reader.cancel().catch(() => undefined);
  return { frames: parseFrames(text), ended };
}

/** Reads one event stream incrementally: wait for a condition, act, wait for the next. */
export class FrameReader {
  readonly frames: SseFrame[] = [];
  ended = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #text = "";

  constructor(response: Response) {
    if (response.body === null) throw new Error("FrameReader: no body");
    this.#reader = response.body.getReader();
  }

  /** Read until `condition(frames)` holds (or the stream ends); throws on timeout. */
  async until(condition: (frames: SseFrame[]) => boolean, timeoutMs = 10_000): Promise<SseFrame[]> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(this.frames)) {
      if (this.ended) throw new Error("FrameReader: the stream ended first");
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("FrameReader: timed out");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), remaining);
      });
      const next = await Promise.race([this.#reader.read(), timeout]);
      clearTimeout(timer);
      if (next === "timeout") continue;
      if (next.done) {
        this.ended = true;
        continue;
      }
      this.#text += this.#decoder.decode(next.value, { stream: true });
      const cut = this.#text.lastIndexOf("\n\n");
      if (cut === -1) continue;
      this.frames.push(...parseFrames(this.#text.slice(0, cut + 2)));
      this.#text = this.#text.slice(cut + 2);
    }
    return this.frames;
  }

  /** Read to the end of the stream. */
  async toEnd(timeoutMs = 10_000): Promise<SseFrame[]> {
    await this.until(() => this.ended, timeoutMs).catch((error: unknown) => {
      if (!this.ended) throw error;
    });
    return this.frames;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

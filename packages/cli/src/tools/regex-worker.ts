/**
 * Regular-expression matching off the main thread. JavaScript's engine backtracks, so a pattern
 * like `(a+)+$` can take minutes on a short line, and synchronous code cannot be interrupted: on
 * the main thread it would stall the whole process (API, workers, timers, the tool's own timeout).
 * Here the matching runs in a worker thread that is terminated when the search's time is up or
 * its signal aborts; the main thread only waits on messages.
 *
 * Why not a linear-time engine (e.g. `re2js`): it would change what the model's patterns mean
 * (no lookaround, no backreferences, other syntax errors) behind a tool that promises JavaScript
 * regular expressions, and add a dependency; a thread costs a few milliseconds per search.
 */
import { Worker } from "node:worker_threads";

/** Thrown when the matching ran past its time: the pattern, not the files, is the problem. */
export class RegexTimeoutError extends Error {
  readonly code = "RegexTimeout";
  constructor(pattern: string, timeoutMs: number) {
    super(
      `the regular expression /${pattern}/ was stopped after ${timeoutMs} ms without finishing ` +
        "(it probably backtracks catastrophically, e.g. a nested quantifier like (a+)+): simplify it",
    );
    this.name = "RegexTimeoutError";
  }
}

/** A match found by the worker: the line's index (from 0) and its text. */
export type LineMatch = [index: number, line: string];

/**
 * The worker's code, evaluated as a CommonJS script (no file to locate in `src` or `dist`). It
 * splits each text into lines as the main thread would and answers the first `limit` matches.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const matcher = new RegExp(workerData.pattern, workerData.flags);
parentPort.on("message", ({ id, text, limit }) => {
  const found = [];
  const lines = text.split(/\\r?\\n/);
  for (let i = 0; i < lines.length && found.length < limit; i++) {
    if (matcher.test(lines[i])) found.push([i, lines[i]]);
  }
  parentPort.postMessage({ id, found });
});
`;

/** Memory for the worker: a 4 MiB file split into lines fits many times over. */
const WORKER_HEAP_MB = 256;

/** One search's matcher: one worker, one time budget shared by every file it is given. */
export class ThreadedMatcher {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (found: LineMatch[]) => void; reject: (error: unknown) => void }>();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #signal: AbortSignal;
  readonly #onAbort: () => void;
  #failure: unknown;
  #next = 0;

  /** `pattern` and `flags` must already compile (the caller reports a syntax error itself). */
  constructor(pattern: string, flags: string, options: { timeoutMs: number; signal: AbortSignal }) {
    this.#signal = options.signal;
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { pattern, flags },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    this.#worker.on("message", (message: { id: number; found: LineMatch[] }) => {
      const waiting = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      waiting?.resolve(message.found);
    });
    this.#worker.on("error", (error) => this.#fail(error));
    this.#worker.on("exit", () => this.#fail(new Error("the regular-expression worker stopped")));
    this.#timer = setTimeout(() => this.#fail(new RegexTimeoutError(pattern, options.timeoutMs)), options.timeoutMs);
    this.#onAbort = () => this.#fail(options.signal.reason);
    options.signal.addEventListener("abort", this.#onAbort, { once: true });
    if (options.signal.aborted) this.#onAbort();
  }

  /** The first `limit` lines of `text` that match, in order. */
  match(text: string, limit: number): Promise<LineMatch[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, text, limit });
    });
  }

  /** Stops the worker; every search still waiting fails with the first reason given. */
  #fail(reason: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = reason;
    this.#release();
    for (const waiting of this.#pending.values()) waiting.reject(reason);
    this.#pending.clear();
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.#signal.removeEventListener("abort", this.#onAbort);
    // terminate() stops it even in the middle of a match; its promise is not worth waiting for.
    void this.#worker.terminate();
  }

  /** Ends the search (idempotent). */
  close(): void {
    this.#fail(new Error("the search is over"));
  }
}

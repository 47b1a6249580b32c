/**
 * `ScriptedModel`: a `Model` that plays scripted turns, for tests and the offline demo. It
 * records every request, and `assertConsumed()` fails a test that left turns unplayed or called
 * the model more often than scripted.
 *
 * Two ways to pick the turn to play:
 * - `"sequential"` (default): the n-th call plays turn n.
 * - `"by-transcript"`: the turn is the number of assistant entries already in the request's
 *   transcript, so the model itself is stateless: a task resumed in a fresh process continues the
 *   script where it left off, and a turn retried after a crash plays the same answer again.
 */

import type { Model, ModelFailure, ModelPart, ModelRequest } from "../ports/model.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { FinishReason } from "../protocol/transcript.ts";
import type { Usage } from "../protocol/usage.ts";

/** A tool call in a scripted turn: the tool, its input (or raw argument text), and optionally its id. */
export interface ScriptedToolCall {
  name: string;
  input: JsonValue;
  /** Default: `call-<turn>-<index>`, stable across replays. */
  callId?: string;
  /** Send the raw argument text instead of `input` (to script malformed JSON). */
  rawInput?: string;
}

/**
 * One scripted model turn: its text, reasoning and tool calls, how it streams (chunk size, delays),
 * and how it ends (usage, finish reason, or a failure).
 */
export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** Stream text and tool input in deltas of this many characters (default: one delta each). */
  chunkSize?: number;
  /** Wait this long before answering (abortable). */
  delayMs?: number;
  /** Wait this long between deltas (abortable), to let a test act mid-stream. */
  deltaDelayMs?: number;
  /** End the stream with this failure instead of a finish, after any content above. */
  error?: Partial<ModelFailure> & { message: string };
  usage?: Usage;
  finishReason?: FinishReason;
}

/**
 * A scripted turn, or a function of the request and the turn's index that returns one (to answer
 * from what the model was sent).
 */
export type ScriptStep = ScriptedTurn | ((request: ModelRequest, turn: number) => ScriptedTurn | Promise<ScriptedTurn>);

/**
 * A {@link ScriptedModel}'s id (default `script:inline`), whether it records requests, and how it
 * picks the turn to play (`sequential` or `by-transcript`).
 */
export interface ScriptedModelOptions {
  /** The model id (default `script:inline`). */
  id?: string;
  /** Keep a copy of every request (default true). Benchmarks turn it off: copies grow with the task. */
  recordRequests?: boolean;
  /** How the turn to play is picked: `sequential` (default) or `by-transcript` (see the class). */
  mode?: "sequential" | "by-transcript";
}

const DEFAULT_USAGE: Usage = { inputTokens: 10, outputTokens: 5 };

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(completed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function assistantTurns(request: ModelRequest): number {
  let n = 0;
  for (const entry of request.transcript) if (entry.role === "assistant") n++;
  return n;
}

function chunks(text: string, size: number | undefined): string[] {
  if (size === undefined || size <= 0 || text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * A {@link Model} that plays scripted turns, streaming them as a provider would, for tests and the
 * offline demo. It records the requests it gets; `assertConsumed()` fails a test that left turns
 * unplayed or called it past the script (such a call gets a non-retryable `script` error).
 */
export class ScriptedModel implements Model {
  readonly id: string;
  readonly #steps: ScriptStep[];
  readonly #mode: "sequential" | "by-transcript";
  /** Every request, in call order (transcripts copied at call time), settings and `responseFormat` included. */
  readonly requests: ModelRequest[] = [];
  readonly #record: boolean;
  #calls = 0;
  #played = new Set<number>();
  #overruns = 0;

  constructor(steps: ScriptStep[], options: ScriptedModelOptions = {}) {
    this.#steps = steps;
    this.id = options.id ?? "script:inline";
    this.#mode = options.mode ?? "sequential";
    this.#record = options.recordRequests ?? true;
  }

  /** How many calls were made. */
  get calls(): number {
    return this.#calls;
  }

  /** Throws when a scripted turn was never played or the model was called past the script. */
  assertConsumed(): void {
    const unplayed = this.#steps.map((_, i) => i).filter((i) => !this.#played.has(i));
    if (this.#overruns > 0)
      throw new Error(
        `ScriptedModel was called ${this.#overruns} time(s) more than its ${this.#steps.length} scripted turn(s)`,
      );
    if (unplayed.length > 0)
      throw new Error(`ScriptedModel left ${unplayed.length} scripted turn(s) unplayed: ${unplayed.join(", ")}`);
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelPart> {
    const index = this.#mode === "sequential" ? this.#calls : assistantTurns(request);
    this.#calls++;
    if (this.#record) this.requests.push({ ...request, transcript: [...request.transcript] });
    const step = this.#steps[index];
    if (step === undefined) {
      this.#overruns += 1;
      const overrun: Beat = {
        type: "error",
        failure: {
          code: "script",
          message: `the script has ${this.#steps.length} turn(s) and turn ${index + 1} was requested`,
          isRetryable: false,
        },
      };
      return play([overrun][Symbol.iterator](), signal);
    }
    this.#played.add(index);
    return typeof step === "function" ? deferred(step, request, index, signal) : play(beats(step, index), signal);
  }
}

/** A point of a scripted turn's stream: a part to send, or a place to wait (where an abort is noticed). */
type Beat = ModelPart | { type: "pause"; ms: number | undefined };

/** The turn as a sequence of parts and pauses: one description for the fast and the timed path. */
function* beats(turn: ScriptedTurn, index: number): Generator<Beat> {
  yield { type: "pause", ms: turn.delayMs };
  if (turn.reasoning !== undefined) {
    yield { type: "reasoning-start", id: "r0" };
    for (const delta of chunks(turn.reasoning, turn.chunkSize)) {
      yield { type: "reasoning-delta", id: "r0", delta };
      yield { type: "pause", ms: turn.deltaDelayMs };
    }
    yield { type: "reasoning-end", id: "r0" };
  }
  if (turn.text !== undefined && turn.text !== "") {
    yield { type: "text-start", id: "t0" };
    for (const delta of chunks(turn.text, turn.chunkSize)) {
      yield { type: "text-delta", id: "t0", delta };
      yield { type: "pause", ms: turn.deltaDelayMs };
    }
    yield { type: "text-end", id: "t0" };
  }
  const calls = turn.toolCalls ?? [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as ScriptedToolCall;
    const id = call.callId ?? `call-${index + 1}-${i + 1}`;
    const input = call.rawInput ?? JSON.stringify(call.input);
    yield { type: "tool-input-start", id, toolName: call.name };
    for (const delta of chunks(input, turn.chunkSize)) {
      yield { type: "tool-input-delta", id, delta };
      yield { type: "pause", ms: turn.deltaDelayMs };
    }
    yield { type: "tool-input-end", id };
    yield { type: "tool-call", toolCallId: id, toolName: call.name, input };
  }
  if (turn.error !== undefined) {
    yield { type: "error", failure: { code: "script", isRetryable: false, ...turn.error } };
    return;
  }
  const finishReason = turn.finishReason ?? (calls.length > 0 ? "tool-calls" : "stop");
  yield { type: "finish", usage: turn.usage ?? DEFAULT_USAGE, finishReason };
}

const ABORTED: ModelPart = {
  type: "error",
  failure: { code: "aborted", message: "the call was aborted", isRetryable: false },
};

/**
 * Play beats as an async iterator of already-resolved steps, sleeping only at pauses that ask
 * for time: an async generator would cost a promise chain per part, most of a scripted turn's
 * cost in a benchmark. After an abort the last part is the aborted failure.
 */
function play(source: Iterator<Beat>, signal: AbortSignal): AsyncIterableIterator<ModelPart> {
  const end: IteratorReturnResult<undefined> = { value: undefined, done: true };
  let finished = false;
  const stop = (): IteratorResult<ModelPart> => {
    finished = true;
    return { value: ABORTED, done: false };
  };
  const next = (): Promise<IteratorResult<ModelPart>> => {
    for (;;) {
      if (finished) return Promise.resolve(end);
      const beat = source.next();
      if (beat.done === true) {
        finished = true;
        return Promise.resolve(end);
      }
      const value = beat.value;
      if (value.type !== "pause") return Promise.resolve({ value, done: false });
      if (signal.aborted) return Promise.resolve(stop());
      if (value.ms !== undefined && value.ms > 0)
        return sleep(value.ms, signal).then((completed) => (completed ? next() : stop()));
    }
  };
  return {
    next,
    async return() {
      finished = true;
      return end;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** A turn computed by a function of the request (maybe asynchronously), then played. */
async function* deferred(
  step: Extract<ScriptStep, (...args: never[]) => unknown>,
  request: ModelRequest,
  index: number,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  let turn: ScriptedTurn;
  try {
    turn = await step(request, index);
  } catch (error) {
    yield {
      type: "error",
      failure: { code: "script", message: `script turn ${index + 1} threw: ${String(error)}`, isRetryable: false },
    };
    return;
  }
  yield* play(beats(turn, index), signal);
}

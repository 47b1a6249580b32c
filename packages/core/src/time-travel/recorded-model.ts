/**
 * The model of a replay: it answers the n-th call with the n-th recorded `model_turn`, and first
 * compares what it was sent with what the recorded turn says the model was sent (its `request`
 * digests). On a difference it answers nothing (a failure part that no retry repeats), so the
 * replay stops there.
 */
import { digestRequest } from "../harness/model/request-digest.ts";
import type { Model, ModelPart, ModelRequest } from "../ports/model.ts";
import type { ModelTurnEvent, RequestDigest, StoredEvent } from "../protocol/task-event.ts";

/** One model call of a replay, compared: the recorded turn, and the request the replay built. */
export interface ComparedCall {
  /** 1-based, among the replayed turns. */
  turn: number;
  recorded: StoredEvent & ModelTurnEvent;
  request: ModelRequest;
  digest: RequestDigest;
  verdict: "identical" | "unverified" | "different";
}

const STOP = "replay stopped: the request differs from the recorded one";

/** Plays recorded turns, comparing each request; `calls` holds every comparison, `extra` a call past the recording. */
export class RecordedModel implements Model {
  readonly id: string;
  readonly calls: ComparedCall[] = [];
  /** A call past the last recorded turn: the replay asked the model more often than the recording. */
  extra: ModelRequest | undefined;
  readonly #turns: readonly (StoredEvent & ModelTurnEvent)[];

  constructor(turns: readonly (StoredEvent & ModelTurnEvent)[], id = "replay:recorded") {
    this.#turns = turns;
    this.id = id;
  }

  /** Whether a call differed (or went past the recording): the replay stops. */
  get diverged(): boolean {
    return this.extra !== undefined || this.calls.some((call) => call.verdict === "different");
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelPart> {
    const recorded = this.#turns[this.calls.length];
    if (recorded === undefined || this.diverged) {
      this.extra ??= recorded === undefined ? request : undefined;
      yield { type: "error", failure: { code: "script", message: STOP, isRetryable: false } };
      return;
    }
    const digest = await digestRequest(request);
    const verdict =
      recorded.request === undefined
        ? "unverified"
        : recorded.request.digest === digest.digest
          ? "identical"
          : "different";
    this.calls.push({ turn: this.calls.length + 1, recorded, request, digest, verdict });
    if (verdict === "different") {
      yield { type: "error", failure: { code: "script", message: STOP, isRetryable: false } };
      return;
    }
    yield* turnParts(recorded);
  }
}

/** A recorded turn as the stream parts that make the harness record it again. */
function* turnParts(turn: ModelTurnEvent): Generator<ModelPart> {
  if (turn.reasoning !== undefined) {
    yield { type: "reasoning-start", id: "r" };
    yield { type: "reasoning-delta", id: "r", delta: turn.reasoning };
    yield { type: "reasoning-end", id: "r" };
  }
  if (turn.text !== "") {
    yield { type: "text-start", id: "t" };
    yield { type: "text-delta", id: "t", delta: turn.text };
    yield { type: "text-end", id: "t" };
  }
  for (const call of turn.toolCalls)
    yield { type: "tool-call", toolCallId: call.callId, toolName: call.name, input: JSON.stringify(call.input) };
  yield { type: "finish", usage: turn.usage, finishReason: turn.finishReason };
}

/** A compaction model of a replay: it answers each summary request with the next recorded summary. */
export class RecordedSummaries implements Model {
  readonly id = "replay:summaries";
  readonly #summaries: string[];

  constructor(summaries: readonly string[]) {
    this.#summaries = [...summaries];
  }

  async *stream(): AsyncIterable<ModelPart> {
    const summary = this.#summaries.shift();
    if (summary === undefined) {
      yield { type: "error", failure: { code: "script", message: "no recorded summary left", isRetryable: false } };
      return;
    }
    yield { type: "text-start", id: "s" };
    yield { type: "text-delta", id: "s", delta: summary };
    yield { type: "text-end", id: "s" };
    yield { type: "finish", usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "stop" };
  }
}

/**
 * The UI message stream's wire format over an event stream of the log: each part a `data:` line
 * of JSON, and `data: [DONE]` last. Its headers name the protocol version for the AI SDK's client.
 */
import type { StoredEvent } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";
import type { StepDeltas } from "../events/event-hub.ts";
import type { StreamFramer } from "../events/sse-subscriber.ts";
import type { TurnEncoder } from "./turn-encoder.ts";
import type { UiChunk } from "./ui-chunk.ts";

export const UI_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
  "x-vercel-ai-ui-message-stream": "v1",
};

const encoder = new TextEncoder();
const DONE = "data: [DONE]\n\n";

function frames(chunks: readonly UiChunk[], tail = ""): Uint8Array | undefined {
  if (chunks.length === 0 && tail === "") return undefined;
  return encoder.encode(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + tail);
}

/** A framer for one stream of one turn. */
export function uiStreamFramer(turn: TurnEncoder): StreamFramer {
  return {
    opening: () => frames(turn.opening()),
    stored: (event: StoredEvent) => frames(turn.stored(event)),
    ephemeral: (event: EphemeralEvent, stepAfterSeq: number | undefined) => frames(turn.ephemeral(event, stepAfterSeq)),
    live: (step: StepDeltas | undefined) => frames(turn.live(step)),
    get done() {
      return turn.done;
    },
    closing: () => frames(turn.closing(), DONE),
    // Cut short (a client too slow for its budget, a revoked token): said as an error; the
    // client resumes the turn from the log with the stream's GET.
    cut: (type) => frames([{ type: "error", errorText: `stream ended: ${type}` }], DONE) ?? encoder.encode(DONE),
  };
}

/** The whole stream of a turn with nothing to add: the client's message stays as it is. */
export function settledTurn(messageId: string): Response {
  const body = frames(
    [
      { type: "start", messageId },
      { type: "finish", finishReason: "stop" },
    ],
    DONE,
  );
  return new Response(body ?? DONE, { headers: UI_STREAM_HEADERS });
}

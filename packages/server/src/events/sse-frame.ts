/**
 * SSE frames as bytes. A stored event or a delta goes to every subscriber of its task as the same
 * bytes, so each is serialized and encoded once (cached by object) rather than once per client.
 */

import type { StoredEvent } from "@sema-agent/core";
import type { EphemeralEvent } from "@sema-agent/core/protocol";

const encoder = new TextEncoder();
const encoded = new WeakMap<object, Uint8Array>();

/** `id:` = seq (what `Last-Event-ID` resumes from), `event:` = type, `data:` = the event's JSON. */
export function storedFrame(event: StoredEvent): Uint8Array {
  let bytes = encoded.get(event);
  if (bytes === undefined) {
    bytes = encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    encoded.set(event, bytes);
  }
  return bytes;
}

/** A live delta: no `id:`, so a reconnection resumes by stored seq only. */
export function ephemeralFrame(event: EphemeralEvent): Uint8Array {
  let bytes = encoded.get(event);
  if (bytes === undefined) {
    bytes = encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    encoded.set(event, bytes);
  }
  return bytes;
}

/** A frame of the stream itself (no `id:`): why it ends, as the last thing a client reads. */
export function controlFrame(type: string, data: Record<string, unknown>): Uint8Array {
  return encoder.encode(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Text frames: `retry:`, comments. */
export function textFrame(text: string): Uint8Array {
  return encoder.encode(text);
}

/** One chunk out of several frames, so a client that fell behind gets them in one write. */
export function concatFrames(frames: readonly Uint8Array[], bytes: number): Uint8Array {
  if (frames.length === 1 && frames[0] !== undefined) return frames[0];
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const frame of frames) {
    out.set(frame, at);
    at += frame.byteLength;
  }
  return out;
}

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

/** The frames of the last chunk made, and the chunk (see `concatFrames`). */
let lastFrames: readonly Uint8Array[] = [];
let lastChunk: Uint8Array = new Uint8Array(0);

/**
 * One chunk out of several frames, so a client that fell behind gets them in one write. Streams
 * level with each other queue the same frames (the same objects) and are written one after the
 * other: the chunk just made is handed to the next of them as it is, so a burst costs one copy,
 * not one per client. Frames are never written to once made, so the same objects are the same bytes.
 */
export function concatFrames(frames: readonly Uint8Array[], bytes: number): Uint8Array {
  if (frames.length === 1 && frames[0] !== undefined) return frames[0];
  if (sameFrames(frames, lastFrames)) return lastChunk;
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const frame of frames) {
    out.set(frame, at);
    at += frame.byteLength;
  }
  lastFrames = frames.slice();
  lastChunk = out;
  return out;
}

function sameFrames(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

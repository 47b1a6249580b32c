/**
 * Ephemeral stream events: what a live subscriber sees between stored events while a model
 * streams. Never stored; the `model_turn` event is the truth once the turn settles.
 */
import type { StoredEvent } from "./task-event.ts";

/**
 * A live-only stream event: a model's text, reasoning and tool-input deltas as they stream, and the
 * store retries a leg cannot log. Never stored.
 */
export type EphemeralEvent =
  | { type: "text_delta"; taskId: string; legId: string; delta: string }
  | { type: "reasoning_delta"; taskId: string; legId: string; delta: string }
  | { type: "tool_input_start"; taskId: string; legId: string; callId: string; name: string }
  | { type: "tool_input_delta"; taskId: string; legId: string; callId: string; delta: string }
  | { type: "tool_input_end"; taskId: string; legId: string; callId: string }
  /** The store was unreachable; the leg waits `delayMs` and tries again (it cannot log this itself). */
  | { type: "store_retry"; taskId: string; attempt: number; delayMs: number; message: string };

/** The `type` of every ephemeral event. */
export type EphemeralEventType = EphemeralEvent["type"];

/** Everything an `emit` sink receives: stored events as they are appended, and ephemeral ones. */
export type StreamEvent = StoredEvent | EphemeralEvent;

/** The sink the harness writes to. It must not throw; async iterables are thin wrappers over it. */
export type Emit = (event: StreamEvent) => void;

const EPHEMERAL_TYPES: ReadonlySet<string> = new Set<EphemeralEventType>([
  "text_delta",
  "reasoning_delta",
  "tool_input_start",
  "tool_input_delta",
  "tool_input_end",
  "store_retry",
]);

/** Whether a stream event is ephemeral (never stored, no `seq`) rather than a stored event. */
export function isEphemeral(event: StreamEvent): event is EphemeralEvent {
  return EPHEMERAL_TYPES.has(event.type);
}

/**
 * The random source of a replay: it gives back, in order, the nonces of the untrusted fences the
 * recorded log holds, so fences the replay writes again carry the same bytes as the recording.
 * Past the last one (or for another size) it counts, deterministically.
 */
import type { RandomBytes } from "../core/trust-framing.ts";
import type { StoredEvent } from "../protocol/task-event.ts";

const NONCE = /<untrusted-([0-9a-f]{16})(?:-\d+)?[ >]/g;

function textsOf(event: StoredEvent): string[] {
  switch (event.type) {
    case "user_message":
      return [event.content, ...(event.parts ?? []).flatMap((p) => (p.type === "text" ? [p.text] : []))];
    case "tool_result":
    case "hook_feedback":
      return [event.content];
    default:
      return [];
  }
}

export function recordedNonces(events: readonly StoredEvent[]): RandomBytes {
  const queue: string[] = [];
  const seen = new Set<string>();
  for (const event of events)
    for (const text of textsOf(event))
      for (const match of text.matchAll(NONCE)) {
        const nonce = match[1] as string;
        if (seen.has(nonce)) continue;
        seen.add(nonce);
        queue.push(nonce);
      }
  let counter = 0;
  return (size) => {
    const next = queue[0];
    if (next !== undefined && size * 2 === next.length) {
      queue.shift();
      return Uint8Array.from({ length: size }, (_, i) => Number.parseInt(next.slice(i * 2, i * 2 + 2), 16));
    }
    counter++;
    return Uint8Array.from({ length: size }, (_, i) => (counter * 131 + i * 7) % 256);
  };
}

/**
 * A task state's JSON text for its snapshots, equal to `JSON.stringify(state)` but built without
 * serializing the whole transcript again. The fold only ever appends transcript entries and never
 * changes one (a compaction builds a new list), so the text of the entries serialized for the last
 * snapshot is kept, and the next snapshot serializes only the entries added since — in one call:
 * many small `JSON.stringify` calls cost more than one over the same objects. A snapshot of a long
 * task then costs its new entries and copying text, instead of its whole history each time.
 */
import type { TranscriptEntry } from "../protocol/transcript.ts";
import type { TaskState } from "./fold.ts";

export class StateJson {
  /** The entries `#text` holds, in order (the same objects). */
  #entries: readonly TranscriptEntry[] = [];
  /** Their JSON array text without the closing bracket: `[`, or `[{…},{…}`. */
  #text = "[";

  /** `JSON.stringify(state)`, exactly. */
  of(state: TaskState): string {
    const parts: string[] = [];
    for (const key of Object.keys(state)) {
      const value = (state as unknown as Record<string, unknown>)[key];
      // As JSON.stringify does: a key whose value is undefined is left out.
      if (value === undefined) continue;
      const text = key === "transcript" ? this.#transcript(state.transcript) : JSON.stringify(value);
      parts.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${parts.join(",")}}`;
  }

  #transcript(entries: readonly TranscriptEntry[]): string {
    const known = this.#entries;
    let same = 0;
    while (same < known.length && same < entries.length && known[same] === entries[same]) same++;
    // Not a continuation of what was serialized (a compaction rebuilt the list): start over.
    if (same < known.length) {
      this.#text = "[";
      same = 0;
    }
    if (same < entries.length) {
      const added = JSON.stringify(entries.slice(same));
      this.#text = same === 0 ? added.slice(0, -1) : `${this.#text},${added.slice(1, -1)}`;
    }
    this.#entries = entries.slice();
    return `${this.#text}]`;
  }
}

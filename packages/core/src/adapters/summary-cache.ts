/**
 * The parsed task summary of the last appends, by task: an SQL store reads the summary's JSON text
 * on every append and writes it back changed, so the text it reads is usually the text it wrote
 * last. Comparing the text is far cheaper than parsing it again (a running leg appends twice per
 * turn), and stays correct whoever wrote the row: a different text is parsed as usual.
 */
import { deepFreeze } from "../core/canonical-json.ts";
import type { TaskSummary } from "../protocol/task-summary.ts";
import { parseColumn } from "./sql-rows.ts";

/**
 * Tasks remembered at once: the legs a host runs concurrently, with room to spare. At 10,000 live
 * legs (bench:live) a smaller cache is evicted before a leg's next append, and every append
 * parses its summary again; PostgreSQL's group commit needs the remembered summary too.
 */
const CAPACITY = 16_384;

/**
 * The parsed task summaries of the last appends, by task (up to 16,384), reused while the row's JSON
 * text is the one parsed: an SQL store rereads the text it wrote last, so it skips parsing it
 * again. Entries are deep-frozen.
 */
export class SummaryCache {
  readonly #store: string;
  readonly #entries = new Map<string, { text: string; summary: TaskSummary }>();

  /** `store` names the adapter in the error a damaged summary raises (`StoreUnavailable`). */
  constructor(store: string) {
    this.#store = store;
  }

  /**
   * The summary whose JSON is `text`, stored for task `key`. Deep-frozen: it is shared between
   * appends, and `reduceSummary` returns a new object instead of changing one.
   */
  parse(key: string, text: string): TaskSummary {
    const hit = this.#entries.get(key);
    if (hit !== undefined && hit.text === text) return hit.summary;
    const summary = deepFreeze(parseColumn<TaskSummary>(text, "task summary", this.#store));
    this.remember(key, text, summary);
    return summary;
  }

  /** The summary remembered for task `key` and its JSON text, if any. */
  peek(key: string): { text: string; summary: TaskSummary } | undefined {
    return this.#entries.get(key);
  }

  /** Record what an append wrote: `text` is `JSON.stringify(summary)`. */
  remember(key: string, text: string, summary: TaskSummary): void {
    if (!this.#entries.has(key) && this.#entries.size >= CAPACITY) {
      // Drop the oldest entry (a Map iterates in insertion order).
      for (const oldest of this.#entries.keys()) {
        this.#entries.delete(oldest);
        break;
      }
    }
    this.#entries.set(key, { text, summary: deepFreeze(summary) });
  }
}

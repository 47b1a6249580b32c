// @ts-check
// The task's raw event log (the Activity tab), one entry per stored event, in order. Entries are
// drawn only near the viewport (window-list.js): the events are kept, their elements made when
// scrolled to, so a log of ten thousand events costs a screenful of elements.
import { logEntry } from "./task-log.js";
import { WindowedList } from "./window-list.js";

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */

export class EventLogView {
  /** @type {Map<string, StoredEvent>} */
  #events = new Map();

  /**
   * @param {HTMLElement} list the `<ol>` the entries go in
   * @param {{ attachment?: (attachment: Record<string, unknown>) => Node }} [options] how an attachment is shown
   */
  constructor(list, options = {}) {
    this.window = new WindowedList(
      list,
      (seq) => {
        const event = this.#events.get(seq);
        return event === undefined ? undefined : logEntry(event, options);
      },
      { gapTag: "li", estimate: 60, blockSize: 50 },
    );
  }

  /** Add stored events at the end (one already shown is ignored). @param {readonly StoredEvent[]} events */
  add(events) {
    for (const event of events) {
      const key = String(event.seq);
      if (this.#events.has(key)) continue;
      this.#events.set(key, event);
      this.window.push(key);
    }
  }

  clear() {
    this.#events.clear();
    this.window.clear();
  }
}

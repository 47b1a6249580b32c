// @ts-check
// The task's legs, turns, tool calls and approval waits with their durations, from the fold
// (fold.js: the same legs, turns and calls as the trace's spans). Only the legs an event touched
// are drawn again; bar widths scale through one CSS variable on the list, set by the CSSOM (which
// the page's strict CSP allows; style attributes it does not). A leg's items are drawn only near the
// viewport (window-list.js), so a leg of thousands of turns costs a screenful of elements.
import { el } from "./dom.js";
import { WindowedList } from "./window-list.js";

/** @typedef {import("./fold.js").Leg} Leg */

const ms = (/** @type {string} */ a, /** @type {string} */ b) => Math.max(0, Date.parse(b) - Date.parse(a));

/** "850 ms", "1.2 s", "3 min 4 s"; "running" while it has no end. @param {number | undefined} duration */
export function formatDuration(duration) {
  if (duration === undefined) return "running";
  if (duration < 1000) return `${duration} ms`;
  if (duration < 60_000) return `${(duration / 1000).toFixed(1)} s`;
  return `${Math.floor(duration / 60_000)} min ${Math.round((duration % 60_000) / 1000)} s`;
}

export class TimelineView {
  /**
   * Each leg drawn: its node, its heading, its items' list (windowed), how many of its items are in
   * that list, and which of them were still open when added (only those can change; the others are final).
   * @type {Map<string, { node: HTMLElement, head: Text, items: WindowedList, count: number, open: Set<number> }>}
   */
  #legs = new Map();
  #longest = 1;

  constructor(/** @type {HTMLElement} */ list) {
    this.list = list;
  }

  clear() {
    for (const drawn of this.#legs.values()) drawn.items.clear();
    this.#legs.clear();
    this.#longest = 1;
    this.list.replaceChildren();
  }

  /**
   * Draw what changed in the legs whose keys are in `keys`: a leg's heading, its items that were
   * open, its new items. A leg of thousands of turns costs what changed in it, not its length.
   * @param {readonly Leg[]} legs @param {readonly string[]} keys
   */
  update(legs, keys) {
    for (const key of keys) {
      const index = legs.findLastIndex((leg) => leg.key === key);
      const leg = legs[index];
      if (leg === undefined) continue;
      const duration = leg.end === undefined ? undefined : ms(leg.start, leg.end);
      if (duration !== undefined && duration > this.#longest) {
        this.#longest = duration;
        this.list.style.setProperty("--longest", String(duration));
      }
      let drawn = this.#legs.get(key);
      if (drawn === undefined) {
        const head = document.createTextNode("");
        const list = el("ol", {});
        const node = el("li", { dataset: { leg: leg.legId } }, head, bar("leg", undefined), list);
        const items = new WindowedList(
          list,
          (at) => {
            const item = leg.items[Number(at)];
            return item === undefined ? undefined : itemNode(item);
          },
          { gapTag: "li", estimate: 24, blockSize: 100 },
        );
        drawn = { node, head, items, count: 0, open: new Set() };
        this.#legs.set(key, drawn);
        this.list.append(node);
      }
      drawn.head.data = `Leg ${index + 1} (${leg.trigger}${leg.reason ? ` → ${leg.reason}` : ""}): ${formatDuration(duration)}`;
      const legBar = drawn.node.querySelector(":scope > .bar");
      if (legBar instanceof HTMLElement) legBar.style.setProperty("--ms", String(duration ?? 0));
      for (const at of [...drawn.open]) {
        const item = leg.items[at];
        if (item === undefined) continue;
        drawn.items.refresh(String(at));
        if (item.end !== undefined) drawn.open.delete(at);
      }
      for (let at = drawn.count; at < leg.items.length; at += 1) {
        const item = leg.items[at];
        if (item === undefined) continue;
        drawn.items.push(String(at));
        if (item.end === undefined) drawn.open.add(at);
      }
      drawn.count = leg.items.length;
    }
  }
}

/** One turn, tool call or wait with its duration. @param {import("./fold.js").TimelineItem} item */
function itemNode(item) {
  const length = item.end === undefined ? undefined : ms(item.start, item.end);
  return el(
    "li",
    { dataset: { kind: item.kind } },
    `${item.label} — ${formatDuration(length)}`,
    bar(item.kind, length),
  );
}

/** A bar as wide as `duration` against the longest leg (see `--longest` in console.css). */
function bar(/** @type {string} */ kind, /** @type {number | undefined} */ duration) {
  const node = el("span", { className: `bar ${kind}`, "aria-hidden": "true" });
  node.style.setProperty("--ms", String(duration ?? 0));
  return node;
}

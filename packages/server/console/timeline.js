// @ts-check
// The task's legs, turns, tool calls and approval waits with their durations, from the fold
// (fold.js: the same legs, turns and calls as the trace's spans). Only the legs an event touched
// are drawn again; bar widths scale through one CSS variable on the list, set by the CSSOM (which
// the page's strict CSP allows; style attributes it does not).
import { el } from "./dom.js";

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
  /** @type {Map<string, HTMLElement>} */
  #nodes = new Map();
  #longest = 1;

  constructor(/** @type {HTMLElement} */ list) {
    this.list = list;
  }

  clear() {
    this.#nodes.clear();
    this.#longest = 1;
    this.list.replaceChildren();
  }

  /** Draw the legs whose keys are in `keys`. @param {readonly Leg[]} legs @param {readonly string[]} keys */
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
      const node = this.#leg(leg, index, duration);
      const old = this.#nodes.get(key);
      if (old === undefined) this.list.append(node);
      else old.replaceWith(node);
      this.#nodes.set(key, node);
    }
  }

  /** @param {Leg} leg @param {number} index @param {number | undefined} duration */
  #leg(leg, index, duration) {
    return el(
      "li",
      { dataset: { leg: leg.legId } },
      `Leg ${index + 1} (${leg.trigger}${leg.reason ? ` → ${leg.reason}` : ""}): ${formatDuration(duration)}`,
      bar("leg", duration),
      el(
        "ol",
        {},
        ...leg.items.map((item) => {
          const length = item.end === undefined ? undefined : ms(item.start, item.end);
          return el(
            "li",
            { dataset: { kind: item.kind } },
            `${item.label} — ${formatDuration(length)}`,
            bar(item.kind, length),
          );
        }),
      ),
    );
  }
}

/** A bar as wide as `duration` against the longest leg (see `--longest` in console.css). */
function bar(/** @type {string} */ kind, /** @type {number | undefined} */ duration) {
  const node = el("span", { className: `bar ${kind}`, "aria-hidden": "true" });
  node.style.setProperty("--ms", String(duration ?? 0));
  return node;
}

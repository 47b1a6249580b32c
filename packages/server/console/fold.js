// @ts-check
// The one fold of a task's log the console draws from, three folds over the same events: the
// conversation (fold-conversation.js: each message once, the result, the open approvals), the
// timeline (fold-timeline.js: legs, turns and tool waits, the spans the traces use) and the cost
// (fold-cost.js: the usage, each turn priced at the model that ran it). It is incremental:
// `add(event)` folds one stored event and says which parts it touched, so a view updates those
// and nothing else. Pure: no DOM, no clock (every time is an event's `at`), so Node tests fold the
// same logs the browser does.

import { ConversationFold } from "./fold-conversation.js";
import { CostFold } from "./fold-cost.js";
import { TimelineFold } from "./fold-timeline.js";

export { parseJson, structured } from "./fold-conversation.js";
export { addUsage, costOf, priceOf } from "./fold-cost.js";

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {import("@sema-agent/core/protocol").Usage} Usage */
/** @typedef {import("./fold-conversation.js").ApprovalRequest} ApprovalRequest */
/** @typedef {import("./fold-conversation.js").Item} Item */
/** @typedef {import("./fold-conversation.js").ToolItem} ToolItem */
/** @typedef {import("./fold-conversation.js").AssistantItem} AssistantItem */
/** @typedef {import("./fold-conversation.js").Result} Result */
/** @typedef {import("./fold-timeline.js").Leg} Leg */
/** @typedef {import("./fold-timeline.js").TimelineItem} TimelineItem */
/** @typedef {import("./fold-cost.js").Price} Price */
/** @typedef {import("./fold-cost.js").Prices} Prices */

/**
 * What one `add` touched: the conversation items and legs (by key) that are new or changed.
 * @typedef {object} Change
 * @property {string[]} items
 * @property {string[]} legs
 * @property {boolean} result
 * @property {boolean} usage
 * @property {boolean} approvals
 */

/** @returns {Change} */
const nothing = () => ({ items: [], legs: [], result: false, usage: false, approvals: false });

export class TaskFold {
  #conversation = new ConversationFold();
  #timeline = new TimelineFold();
  #cost = new CostFold();
  lastSeq = 0;

  /** Conversation items by key. */
  get items() {
    return this.#conversation.items;
  }
  /** Their keys in the order they appeared. */
  get order() {
    return this.#conversation.order;
  }
  get result() {
    return this.#conversation.result;
  }
  /** Calls waiting for a decision, by call id. */
  get approvals() {
    return this.#conversation.approvals;
  }
  /** The task's objective, agent and model, from `task_created`. */
  get task() {
    return this.#conversation.task;
  }
  get legs() {
    return this.#timeline.legs;
  }
  /** The task's tokens: its turns' and its ended children's. */
  get usage() {
    return this.#cost.usage;
  }
  /** `usage` at the prices, model by model; absent until every model used has a price. */
  get costUsd() {
    return this.#cost.costUsd;
  }

  /**
   * Price every turn, and the total, at `prices` (the server's table, GET /v1/tasks/{id}'s
   * `prices`) from now on, each turn at the model that ran it; they arrive with the task's
   * detail, possibly after the log. Says which items changed.
   * @param {Prices | undefined} prices
   * @returns {Change}
   */
  setPrices(prices) {
    const change = nothing();
    /** @type {AssistantItem[]} */
    const turns = [];
    for (const key of this.order) {
      const item = this.items.get(key);
      if (item?.kind === "assistant") turns.push(item);
    }
    if (!this.#cost.setPrices(prices, turns)) return change;
    change.items = turns.map((turn) => turn.key);
    change.usage = true;
    return change;
  }

  /** Fold one stored event (in `seq` order; one already folded is ignored) and say what changed. */
  add(/** @type {StoredEvent} */ event) {
    const change = nothing();
    if (event.seq <= this.lastSeq) return change;
    this.lastSeq = event.seq;
    this.#conversation.add(event, change);
    const turn = event.type === "model_turn" ? this.items.get(`turn:${event.seq}`) : undefined;
    if (this.#cost.add(event, turn?.kind === "assistant" ? turn : undefined)) change.usage = true;
    this.#timeline.add(event, change.legs);
    return change;
  }

  /** Fold many; the union of what they touched. */
  addAll(/** @type {Iterable<StoredEvent>} */ events) {
    const items = new Set();
    const legs = new Set();
    const all = nothing();
    for (const event of events) {
      const change = this.add(event);
      for (const key of change.items) items.add(key);
      for (const key of change.legs) legs.add(key);
      all.result ||= change.result;
      all.usage ||= change.usage;
      all.approvals ||= change.approvals;
    }
    all.items = [...items];
    all.legs = [...legs];
    return all;
  }
}

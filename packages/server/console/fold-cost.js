// @ts-check
// What a task's tokens cost, folded from its log: each model turn at the price of the model that
// ran it (the turn's `model`, else the task's model at that point: `task_created`'s, then a fork's
// `task_forked` model), and the task's total as the sum, model by model. Prices are the server's
// quota table (GET /v1/tasks/{id}'s `prices`), looked up as @sema-agent/core's `priceOf` does;
// the sums are core's `costUsd` (fold.test.ts holds both equal). Pure: no DOM, no clock.

/** @typedef {import("@sema-agent/core/protocol").StoredEvent} StoredEvent */
/** @typedef {import("@sema-agent/core/protocol").Usage} Usage */

/**
 * A model's price in US dollars per million tokens.
 * @typedef {{ input: number, output: number, cachedInput?: number }} Price
 */

/**
 * The server's prices by model id or prefix (without the provider prefix).
 * @typedef {Readonly<Record<string, Price>>} Prices
 */

/**
 * What `usage` cost at `price`, in US dollars: cached input tokens at the cached price (else the
 * input price), the rest of the input and the output at theirs. The same sum as
 * @sema-agent/core's `costUsd`, so a turn's cost here adds up to the cost the server counts.
 * @param {Usage} usage @param {Price} price
 */
export function costOf(usage, price) {
  const cached = usage.cachedInputTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - cached);
  return (
    (fresh * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000
  );
}

/**
 * The price of `modelId` (`provider:id` or a bare id) in `prices`: the longest key the bare id
 * starts with, as @sema-agent/core's `priceOf`.
 * @param {string} modelId @param {Prices} prices @returns {Price | undefined}
 */
export function priceOf(modelId, prices) {
  const bare = modelId.includes(":") ? modelId.slice(modelId.indexOf(":") + 1) : modelId;
  /** @type {string | undefined} */
  let best;
  for (const key of Object.keys(prices))
    if (bare.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  return best === undefined ? undefined : prices[best];
}

/** Usage plus usage, the optional counts kept only when either side has them. */
export function addUsage(/** @type {Usage} */ a, /** @type {Usage} */ b) {
  /** @type {Usage} */
  const sum = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  return sum;
}

/**
 * A priced turn: what it used, the model that ran it ("" when the log names none), and its cost
 * once there is a price for that model.
 * @typedef {{ usage: Usage, pricedModel: string, costUsd?: number }} Priced
 */

export class CostFold {
  /** The task's tokens: its turns' and its ended children's. @type {Usage} */
  usage = { inputTokens: 0, outputTokens: 0 };
  /** `usage` priced model by model; absent until every model used has a price. @type {number | undefined} */
  costUsd = undefined;
  /** @type {Prices | undefined} */
  #prices = undefined;
  /** The model a turn that names none ran on: the task's, a fork's from its `task_forked`. @type {string} */
  #model = "";
  /** The usage of each model, in the order first used ("" for a task with no model named). @type {Map<string, Usage>} */
  #byModel = new Map();

  /**
   * Fold one event's usage and model. A turn's item (`priced`) gets the model that ran it and its
   * cost; says whether the task's usage moved.
   * @param {StoredEvent} event @param {Priced | undefined} priced
   * @returns {boolean}
   */
  add(event, priced) {
    switch (event.type) {
      case "task_created":
        this.#model = event.model ?? "";
        return false;
      case "task_forked":
        if (event.model !== undefined) this.#model = event.model;
        return false;
      case "model_turn": {
        const model = event.model ?? this.#model;
        if (priced !== undefined) {
          priced.pricedModel = model;
          this.#price(priced);
        }
        this.#count(model, event.usage);
        return true;
      }
      case "child_task":
        // A child's model is not on the parent's log: its tokens count at the parent's model.
        if (event.phase !== "result" || event.usage === undefined) return false;
        this.#count(this.#model, event.usage);
        return true;
      default:
        return false;
    }
  }

  /**
   * Price every turn, and the total, at `prices` from now on (they arrive with the task's detail,
   * possibly after the log). Returns false when they are the prices already in use.
   * @param {Prices | undefined} prices @param {Iterable<Priced>} turns
   */
  setPrices(prices, turns) {
    if (samePrices(prices, this.#prices)) return false;
    this.#prices = prices === undefined ? undefined : structuredClone(prices);
    for (const turn of turns) this.#price(turn);
    this.#total();
    return true;
  }

  /** @param {Priced} turn */
  #price(turn) {
    const price = this.#prices === undefined ? undefined : priceOf(turn.pricedModel, this.#prices);
    if (price === undefined) delete turn.costUsd;
    else turn.costUsd = costOf(turn.usage, price);
  }

  /** @param {string} model @param {Usage} usage */
  #count(model, usage) {
    this.usage = addUsage(this.usage, usage);
    this.#byModel.set(model, addUsage(this.#byModel.get(model) ?? { inputTokens: 0, outputTokens: 0 }, usage));
    this.#total();
  }

  #total() {
    const prices = this.#prices;
    if (prices === undefined) {
      this.costUsd = undefined;
      return;
    }
    let total = 0;
    for (const [model, usage] of this.#byModel) {
      const price = priceOf(model, prices);
      if (price === undefined) {
        this.costUsd = undefined;
        return;
      }
      total += costOf(usage, price);
    }
    this.costUsd = total;
  }
}

/** Whether two price tables say the same. @param {Prices | undefined} a @param {Prices | undefined} b */
function samePrices(a, b) {
  if (a === undefined || b === undefined) return a === b;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => {
    const x = a[key];
    const y = b[key];
    return (
      x !== undefined &&
      y !== undefined &&
      x.input === y.input &&
      x.output === y.output &&
      x.cachedInput === y.cachedInput
    );
  });
}

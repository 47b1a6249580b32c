// @ts-check
// A long list drawn only near the viewport. Its keys are kept in blocks of a few dozen; a block is
// either drawn (its items' elements in the list) or a gap: one empty element as tall as the block
// was when last drawn (or as its items are estimated to be), so the page scrolls as if everything
// were there. An IntersectionObserver draws a gap that comes near the viewport and turns a drawn
// block that has gone far from it back into a gap. A task of ten thousand events thus holds a few
// screens of elements, opens without building the rest, and an appended item costs one element.
// A list that is not laid out (a hidden tab) is left as it is: nothing is drawn or dropped there.

/**
 * @typedef {object} Block
 * @property {string[]} keys its items, in order
 * @property {HTMLElement[] | undefined} nodes their elements while drawn
 * @property {HTMLElement | undefined} gap its stand-in while not drawn
 * @property {Set<Element>} near its elements the observer last saw near the viewport
 */

/**
 * @typedef {object} WindowOptions
 * @property {number} [blockSize] items per block (default 40)
 * @property {number} [eager] how many first blocks are drawn at once, before the observer looks (default 2)
 * @property {string} [margin] how far from the viewport a block is still drawn (default 1500px)
 * @property {number} [estimate] the height, in pixels, of an item never drawn (default 80)
 * @property {"div" | "li"} [gapTag] the gap's element: `li` inside a list (default div)
 * @property {() => Node | null} [before] the element new items go before (default: the list's end)
 */

export class WindowedList {
  /** @type {Block[]} */
  #blocks = [];
  /** @type {Map<string, Block>} */
  #blockOf = new Map();
  /** Which block an observed element (an item or a gap) belongs to. @type {WeakMap<Element, Block>} */
  #owner = new WeakMap();
  /** Cards a person opened, kept open when their block is drawn again. @type {Set<string>} */
  #opened = new Set();
  /** @type {IntersectionObserver | undefined} */
  #observer;
  #measured = 0;
  #measuredItems = 0;

  /**
   * @param {HTMLElement} list the container the items are drawn in
   * @param {(key: string) => HTMLElement | undefined} render an item's element, drawn from its current state
   * @param {WindowOptions} [options]
   */
  constructor(list, render, options = {}) {
    this.list = list;
    this.render = render;
    this.blockSize = options.blockSize ?? 40;
    this.eager = options.eager ?? 2;
    this.estimate = options.estimate ?? 80;
    this.gapTag = options.gapTag ?? "div";
    this.before = options.before ?? (() => null);
    if (typeof IntersectionObserver === "function")
      this.#observer = new IntersectionObserver((entries) => this.#seen(entries), {
        rootMargin: `${options.margin ?? "1500px"} 0px`,
      });
  }

  /** How many items the list holds (drawn or not). */
  get size() {
    return this.#blockOf.size;
  }

  /** Forget every item and empty the list. */
  clear() {
    this.#observer?.disconnect();
    this.#blocks = [];
    this.#blockOf.clear();
    this.#opened.clear();
    this.list.replaceChildren();
  }

  /** Whether `key` is in the list. @param {string} key */
  has(key) {
    return this.#blockOf.has(key);
  }

  /** Add `key` at the end: drawn at once when its block is drawn, else when it comes into view. @param {string} key */
  push(key) {
    let block = this.#blocks.at(-1);
    if (block === undefined || block.keys.length >= this.blockSize) {
      const previous = block;
      block = { keys: [], nodes: undefined, gap: undefined, near: new Set() };
      // The first blocks, and one after a drawn block in view (the live end of a list being read), are drawn.
      const drawn =
        this.#blocks.length < this.eager ||
        (previous?.nodes !== undefined && (previous.near.size > 0 || this.#observer === undefined));
      this.#blocks.push(block);
      if (drawn) block.nodes = [];
      else {
        block.gap = this.#gap();
        this.#owner.set(block.gap, block);
        this.list.insertBefore(block.gap, this.before());
        this.#observer?.observe(block.gap);
      }
    }
    block.keys.push(key);
    this.#blockOf.set(key, block);
    if (block.nodes === undefined) {
      if (block.gap !== undefined) block.gap.style.height = `${this.#estimated(block.keys.length)}px`;
      return;
    }
    const node = this.render(key);
    if (node === undefined) return;
    const last = block.nodes.at(-1);
    if (last !== undefined) last.after(node);
    else this.list.insertBefore(node, this.before());
    node.dataset.windowKey = key;
    block.nodes.push(node);
    this.#owner.set(node, block);
    this.#observer?.observe(node);
  }

  /** Draw `key` again if it is drawn (a card a person opened stays open). @param {string} key */
  refresh(key) {
    const block = this.#blockOf.get(key);
    const nodes = block?.nodes;
    if (block === undefined || nodes === undefined) return;
    const at = nodes.findIndex((node) => node.dataset.windowKey === key);
    const old = nodes[at];
    const node = this.render(key);
    if (old === undefined || node === undefined) return;
    if (old instanceof HTMLDetailsElement && node instanceof HTMLDetailsElement) node.open = old.open;
    node.dataset.windowKey = key;
    old.replaceWith(node);
    nodes[at] = node;
    this.#observer?.unobserve(old);
    block.near.delete(old);
    this.#owner.set(node, block);
    this.#observer?.observe(node);
  }

  /** The element drawn for `key`, if its block is drawn. @param {string} key */
  node(key) {
    return this.#blockOf.get(key)?.nodes?.find((node) => node.dataset.windowKey === key);
  }

  /** Draw the block holding `key` (when it is a gap) and return its element. @param {string} key */
  reveal(key) {
    const block = this.#blockOf.get(key);
    if (block === undefined) return undefined;
    if (block.nodes === undefined) this.#draw(block);
    return this.node(key);
  }

  #gap() {
    const gap = document.createElement(this.gapTag);
    gap.className = "window-gap";
    gap.setAttribute("aria-hidden", "true");
    return gap;
  }

  /** @param {number} items */
  #estimated(items) {
    const each = this.#measuredItems === 0 ? this.estimate : this.#measured / this.#measuredItems;
    return Math.round(items * each);
  }

  /** @param {IntersectionObserverEntry[]} entries */
  #seen(entries) {
    /** @type {Set<Block>} */
    const far = new Set();
    for (const entry of entries) {
      const block = this.#owner.get(entry.target);
      if (block === undefined) continue;
      const box = entry.boundingClientRect;
      // Not laid out (in a hidden tab): neither near nor far.
      if (box.width === 0 && box.height === 0 && !entry.isIntersecting) continue;
      if (entry.target === block.gap) {
        if (entry.isIntersecting) this.#draw(block);
        continue;
      }
      if (block.nodes === undefined || !block.nodes.includes(/** @type {HTMLElement} */ (entry.target))) continue;
      if (entry.isIntersecting) {
        block.near.add(entry.target);
        far.delete(block);
      } else {
        block.near.delete(entry.target);
        if (block.near.size === 0) far.add(block);
      }
    }
    for (const block of far) if (block.near.size === 0) this.#fold(block);
  }

  /** A gap drawn: its items' elements in its place. @param {Block} block */
  #draw(block) {
    const gap = block.gap;
    block.gap = undefined;
    block.nodes = [];
    block.near.clear();
    /** @type {HTMLElement[]} */
    const nodes = [];
    for (const key of block.keys) {
      const node = this.render(key);
      if (node === undefined) continue;
      node.dataset.windowKey = key;
      if (node instanceof HTMLDetailsElement && this.#opened.has(key)) node.open = true;
      nodes.push(node);
    }
    if (gap !== undefined) {
      this.#observer?.unobserve(gap);
      gap.replaceWith(...nodes);
    }
    block.nodes = nodes;
    for (const node of nodes) {
      this.#owner.set(node, block);
      this.#observer?.observe(node);
    }
  }

  /** A drawn block far from the viewport becomes a gap as tall as it was. @param {Block} block */
  #fold(block) {
    const nodes = block.nodes;
    const first = nodes?.[0];
    const last = nodes?.at(-1);
    if (nodes === undefined || first === undefined || last === undefined) return;
    const height = Math.max(0, last.getBoundingClientRect().bottom - first.getBoundingClientRect().top);
    this.#measured += height;
    this.#measuredItems += nodes.length;
    for (const node of nodes) {
      const key = node.dataset.windowKey;
      if (node instanceof HTMLDetailsElement && key !== undefined) {
        if (node.open) this.#opened.add(key);
        else this.#opened.delete(key);
      }
    }
    const gap = this.#gap();
    gap.style.height = `${Math.round(height)}px`;
    first.before(gap);
    for (const node of nodes) {
      this.#observer?.unobserve(node);
      node.remove();
    }
    block.nodes = undefined;
    block.near.clear();
    block.gap = gap;
    this.#owner.set(gap, block);
    this.#observer?.observe(gap);
  }
}

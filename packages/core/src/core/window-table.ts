/**
 * A hash table of text windows for taint (taint.ts): each window is a pair of 32-bit hashes, kept
 * in typed arrays with open addressing (linear probing), each with a 32-bit value. No object, no
 * boxed number and no string per window: indexing 100 KB of untrusted text inserts about 100,000
 * windows, which a `Map` of 53-bit number keys paid for with a heap number each. Pure.
 */

const EMPTY = 0;
const FULL = 1;

/** Windows (two 32-bit hashes) mapped to a non-negative 32-bit value. */
export class WindowTable {
  #h1: Uint32Array;
  #h2: Uint32Array;
  #values: Int32Array;
  #state: Uint8Array;
  #mask: number;
  #size = 0;

  constructor(capacity = 64) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.#h1 = new Uint32Array(slots);
    this.#h2 = new Uint32Array(slots);
    this.#values = new Int32Array(slots);
    this.#state = new Uint8Array(slots);
    this.#mask = slots - 1;
  }

  /** How many windows it holds. */
  get size(): number {
    return this.#size;
  }

  /** The slot of `(h1, h2)`, or of the empty slot where it would go. */
  #slot(h1: number, h2: number): number {
    const mask = this.#mask;
    // Mix both halves so windows that share h1 spread out.
    let i = (Math.imul(h1 ^ (h2 >>> 15), 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      if (this.#state[i] === EMPTY) return i;
      if (this.#h1[i] === h1 && this.#h2[i] === h2) return i;
      i = (i + 1) & mask;
    }
  }

  /** The value of `(h1, h2)`, or -1 when it is absent. */
  get(h1: number, h2: number): number {
    const i = this.#slot(h1 >>> 0, h2 >>> 0);
    return this.#state[i] === FULL ? (this.#values[i] as number) : -1;
  }

  /** Whether `(h1, h2)` is present. */
  has(h1: number, h2: number): boolean {
    return this.#state[this.#slot(h1 >>> 0, h2 >>> 0)] === FULL;
  }

  /** Set `(h1, h2)` to `value` (≥ 0); when it is present, only if `overwrite`. */
  set(h1: number, h2: number, value: number, overwrite = true): void {
    const a = h1 >>> 0;
    const b = h2 >>> 0;
    let i = this.#slot(a, b);
    if (this.#state[i] === FULL) {
      if (overwrite) this.#values[i] = value;
      return;
    }
    if ((this.#size + 1) * 2 > this.#mask + 1) {
      this.#grow();
      i = this.#slot(a, b);
    }
    this.#state[i] = FULL;
    this.#h1[i] = a;
    this.#h2[i] = b;
    this.#values[i] = value;
    this.#size++;
  }

  /** Make room for `more` windows at once (one rehash instead of one per doubling). */
  reserve(more: number): void {
    let slots = this.#mask + 1;
    while ((this.#size + more) * 2 > slots) slots *= 2;
    if (slots > this.#mask + 1) this.#grow(slots);
  }

  #grow(slots = (this.#mask + 1) * 2): void {
    const h1 = this.#h1;
    const h2 = this.#h2;
    const values = this.#values;
    const state = this.#state;
    this.#h1 = new Uint32Array(slots);
    this.#h2 = new Uint32Array(slots);
    this.#values = new Int32Array(slots);
    this.#state = new Uint8Array(slots);
    this.#mask = slots - 1;
    for (let j = 0; j < state.length; j++) {
      if (state[j] !== FULL) continue;
      const a = h1[j] as number;
      const b = h2[j] as number;
      const i = this.#slot(a, b);
      this.#state[i] = FULL;
      this.#h1[i] = a;
      this.#h2[i] = b;
      this.#values[i] = values[j] as number;
    }
  }
}

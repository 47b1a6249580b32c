/**
 * SHA-256 (FIPS 180-4) in plain TypeScript, synchronous and incremental. Web Crypto's `digest` is
 * asynchronous: each call is a hop to another thread and back, which costs a small input (a
 * transcript entry, a request's parts) far more than the hashing itself, and it cannot continue a
 * hash, so a request's transcript digest would rehash every entry's digest each turn. Here a
 * hasher can be copied after a prefix and continued, and a small text hashes in a few µs on the
 * calling thread. Runtime-neutral: `TextEncoder` only.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

/** The message schedule, shared: hashing is synchronous, so one block is processed at a time. */
const W = new Int32Array(64);

/** Scratch for finishing a digest (the state, the padded last blocks): `hex` is synchronous too. */
const FINAL_H = new Int32Array(8);
const FINAL_TAIL = new Uint8Array(128);

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

const encoder = new TextEncoder();
/** Scratch space for a text's UTF-8 bytes (grown as needed): most texts hashed are small. */
let scratch = new Uint8Array(4096);

/** Process the 64-byte blocks of `bytes` from `offset`, `blocks` of them, into `h`. */
function compress(h: Int32Array, bytes: Uint8Array, offset: number, blocks: number): void {
  let h0 = h[0] as number;
  let h1 = h[1] as number;
  let h2 = h[2] as number;
  let h3 = h[3] as number;
  let h4 = h[4] as number;
  let h5 = h[5] as number;
  let h6 = h[6] as number;
  let h7 = h[7] as number;
  for (let block = 0; block < blocks; block++, offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      W[i] =
        ((bytes[j] as number) << 24) |
        ((bytes[j + 1] as number) << 16) |
        ((bytes[j + 2] as number) << 8) |
        (bytes[j + 3] as number);
    }
    for (let i = 16; i < 64; i++) {
      const w15 = W[i - 15] as number;
      const w2 = W[i - 2] as number;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[i] = ((W[i - 16] as number) + s0 + (W[i - 7] as number) + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let hh = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + (K[i] as number) + (W[i] as number)) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + hh) | 0;
  }
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
  h[4] = h4;
  h[5] = h5;
  h[6] = h6;
  h[7] = h7;
}

/** An incremental SHA-256: `update` with bytes or text, `copy` to continue a prefix two ways, `hex` to finish. */
export class Sha256 {
  readonly #h: Int32Array;
  /** The bytes of an unfinished block. */
  readonly #block: Uint8Array;
  #blockLength: number;
  /** Bytes hashed so far. */
  #length: number;

  constructor(from?: Sha256) {
    if (from === undefined) {
      this.#h = INITIAL.slice();
      this.#block = new Uint8Array(64);
      this.#blockLength = 0;
      this.#length = 0;
    } else {
      this.#h = from.#h.slice();
      this.#block = from.#block.slice();
      this.#blockLength = from.#blockLength;
      this.#length = from.#length;
    }
  }

  /** A hasher in the same state, continued independently of this one. */
  copy(): Sha256 {
    return new Sha256(this);
  }

  /** Hash `bytes[0, end)` next. */
  update(bytes: Uint8Array, end: number = bytes.length): this {
    let offset = 0;
    this.#length += end;
    if (this.#blockLength > 0) {
      const take = Math.min(64 - this.#blockLength, end);
      this.#block.set(bytes.subarray(0, take), this.#blockLength);
      this.#blockLength += take;
      offset = take;
      if (this.#blockLength < 64) return this;
      compress(this.#h, this.#block, 0, 1);
      this.#blockLength = 0;
    }
    const blocks = (end - offset) >>> 6;
    if (blocks > 0) {
      compress(this.#h, bytes, offset, blocks);
      offset += blocks * 64;
    }
    if (offset < end) {
      this.#block.set(bytes.subarray(offset, end), 0);
      this.#blockLength = end - offset;
    }
    return this;
  }

  /** Hash `text`'s UTF-8 bytes next. */
  updateText(text: string): this {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (scratch.length < text.length * 3) scratch = new Uint8Array(Math.max(text.length * 3, scratch.length * 2));
    const { written } = encoder.encodeInto(text, scratch);
    return this.update(scratch, written);
  }

  /** Start again from nothing, as a new hasher would. */
  reset(): this {
    this.#h.set(INITIAL);
    this.#blockLength = 0;
    this.#length = 0;
    return this;
  }

  /** The digest of everything hashed so far, as lowercase hex; this hasher is left as it was. */
  hex(): string {
    const h = FINAL_H;
    h.set(this.#h);
    const tail = FINAL_TAIL;
    const end = this.#blockLength < 56 ? 64 : 128;
    tail.fill(0, 0, end);
    tail.set(this.#block.subarray(0, this.#blockLength));
    tail[this.#blockLength] = 0x80;
    // The length in bits, big-endian, in the last 8 bytes (as two 32-bit halves).
    const bits = this.#length * 8;
    const high = Math.floor(bits / 0x100000000);
    tail[end - 8] = high >>> 24;
    tail[end - 7] = high >>> 16;
    tail[end - 6] = high >>> 8;
    tail[end - 5] = high;
    tail[end - 4] = bits >>> 24;
    tail[end - 3] = bits >>> 16;
    tail[end - 2] = bits >>> 8;
    tail[end - 1] = bits;
    compress(h, tail, 0, end / 64);
    let hex = "";
    for (let i = 0; i < 8; i++) {
      const word = h[i] as number;
      hex +=
        (HEX[(word >>> 24) & 0xff] as string) +
        (HEX[(word >>> 16) & 0xff] as string) +
        (HEX[(word >>> 8) & 0xff] as string) +
        (HEX[word & 0xff] as string);
    }
    return hex;
  }
}

/** The SHA-256 of `text`'s UTF-8 bytes, as lowercase hex, computed now on this thread. */
export function sha256HexNow(text: string): string {
  // One hasher for every such call: each runs to its end synchronously, so none overlap.
  return oneShot.reset().updateText(text).hex();
}

const oneShot = new Sha256();

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Sha256, sha256HexNow } from "./sha256.ts";

/** Web Crypto's SHA-256 of `bytes`, as lowercase hex: the reference. */
async function reference(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice()));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

describe("Sha256", () => {
  it("gives FIPS 180-4's digests of its examples, and every length around a block's end", async () => {
    expect(sha256HexNow("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256HexNow("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256HexNow("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    // 55, 56, 63, 64, 65 … bytes: the padding takes one block or two.
    for (let length = 0; length <= 200; length++) {
      const text = "x".repeat(length);
      expect(sha256HexNow(text), `length ${length}`).toBe(await reference(new TextEncoder().encode(text)));
    }
  });

  it("property: any text, hashed whole or in pieces, and a copy continued, equals Web Crypto's digest", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: "binary", maxLength: 150 }), { maxLength: 6 }),
        fc.nat({ max: 6 }),
        async (pieces, at) => {
          const whole = pieces.join("");
          const expected = await reference(new TextEncoder().encode(whole));
          expect(sha256HexNow(whole)).toBe(expected);
          const hasher = new Sha256();
          const cut = Math.min(at, pieces.length);
          for (const piece of pieces.slice(0, cut)) hasher.updateText(piece);
          // The prefix's hasher copied: the copy finishes the text, the original stays at the prefix.
          const copy = hasher.copy();
          for (const piece of pieces.slice(cut)) copy.updateText(piece);
          expect(copy.hex()).toBe(expected);
          expect(hasher.hex()).toBe(await reference(new TextEncoder().encode(pieces.slice(0, cut).join(""))));
        },
      ),
    );
  });

  it("hashes bytes across many blocks, as Web Crypto does", async () => {
    const bytes = Uint8Array.from({ length: 100_003 }, (_, i) => (i * 31 + 7) & 0xff);
    const hasher = new Sha256();
    for (let i = 0; i < bytes.length; i += 777) hasher.update(bytes.subarray(i, Math.min(i + 777, bytes.length)));
    expect(hasher.hex()).toBe(await reference(bytes));
    expect(new Sha256().update(bytes).hex()).toBe(await reference(bytes));
  });
});

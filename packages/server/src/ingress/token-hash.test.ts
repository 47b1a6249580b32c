/**
 * Token hashing and minting run on Web Crypto, wherever the app runs. A hash must be the one
 * stores already hold: SHA-256 of the token's UTF-8, hex, exactly as node:crypto computed it.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashToken, mintToken, tokenIdOf } from "./token-store.ts";

describe("token hashes and new tokens", () => {
  it("hashToken is node:crypto's SHA-256 hex of the UTF-8, for any text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (text) => {
        expect(await hashToken(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
      }),
      { numRuns: 300 },
    );
    // A token stored before the change, hashed then: the same hash now.
    const token = `sema_0123456789ab_${"A".repeat(43)}`;
    expect(await hashToken(token)).toBe(createHash("sha256").update(token, "utf8").digest("hex"));
  });

  it("mintToken makes well-formed, distinct tokens whose id is their own", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { tokenId, token } = mintToken();
      expect(token).toMatch(/^sema_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
      expect(tokenIdOf(token)).toBe(tokenId);
      seen.add(token);
    }
    expect(seen.size).toBe(500);
  });
});

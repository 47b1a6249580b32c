import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "./base64url.ts";

describe("base64url", () => {
  it("encodes exactly as Node's Buffer did, so cursors handed out before still decode", () => {
    for (const text of ["", "a", "ab", "abc", '["2026-01-01T00:00:00.000Z","t-1"]', "é ü 漢字 🙂", "\u0000\u00ff?>~"]) {
      const encoded = toBase64Url(text);
      expect(encoded).toBe(Buffer.from(text).toString("base64url"));
      expect(fromBase64Url(encoded)).toBe(text);
    }
  });

  it("throws on text that is not base64url", () => {
    expect(() => fromBase64Url("not base64!")).toThrow();
  });
});

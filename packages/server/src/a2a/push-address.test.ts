/**
 * Webhook addresses are judged by their bytes (issue 29, finding 1): every IPv4 range that is not
 * public is refused in each spelling that reaches it — dotted, IPv4-mapped (both spellings, and as
 * the URL parser writes it), NAT64 and 6to4 — and the IPv6 special ranges are refused too. A
 * public IPv4 address stays public in the forms that carry it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOCKED_IPV4_RANGES, isPublicAddress } from "./push-address.ts";
import { checkPushUrl } from "./push-url.ts";

const hex = (high: number, low: number) => ((high << 8) | low).toString(16);

/** The IPv6 spellings that carry the IPv4 address `a.b.c.d`. */
function carriers([a, b, c, d]: readonly number[]): string[] {
  const dotted = `${a}.${b}.${c}.${d}`;
  const words = `${hex(a ?? 0, b ?? 0)}:${hex(c ?? 0, d ?? 0)}`;
  return [
    `::ffff:${dotted}`,
    `::ffff:${words}`,
    `0:0:0:0:0:ffff:${words}`,
    `64:ff9b::${dotted}`,
    `64:ff9b::${words}`,
    `2002:${words}::1`,
    `2002:${words}:abcd:1::`,
  ];
}

/** A random address inside `base/bits`. */
function inRange(range: string): fc.Arbitrary<number[]> {
  const [base = "", bits = "32"] = range.split("/");
  const start = base.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  const size = 2 ** (32 - Number(bits));
  return fc.integer({ min: 0, max: size - 1 }).map((offset) => {
    const n = start + offset;
    return [Math.floor(n / 2 ** 24) % 256, Math.floor(n / 2 ** 16) % 256, Math.floor(n / 256) % 256, n % 256];
  });
}

const anyBlocked = fc.constantFrom(...BLOCKED_IPV4_RANGES).chain(inRange);

describe("webhook addresses, by their bytes", () => {
  it("refuses every non-public IPv4 address, and every IPv6 form that carries one", () => {
    fc.assert(
      fc.property(anyBlocked, (bytes) => {
        expect(isPublicAddress(bytes.join("."))).toBe(false);
        for (const form of carriers(bytes)) expect(isPublicAddress(form), form).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses them in a URL too, as the URL parser rewrites them", async () => {
    await fc.assert(
      fc.asyncProperty(anyBlocked, fc.integer({ min: 1, max: 65535 }), async (bytes, port) => {
        for (const form of [bytes.join("."), ...carriers(bytes).map((text) => `[${text}]`)])
          await expect(checkPushUrl(`http://${form}:${port}/hook`, {}), form).rejects.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    "http://[::ffff:7f00:1]:8080/",
    "http://[::ffff:127.0.0.1]:8080/",
    "http://[::ffff:0.0.0.0]/",
    "http://[::ffff:a9fe:a9fe]/latest/meta-data",
    "http://0x7f.1/",
    "http://2130706433/",
    "http://[::127.0.0.1]/",
  ])("refuses %s (the issue's spellings)", async (url) => {
    await expect(checkPushUrl(url, {})).rejects.toThrow();
  });

  it.each([
    "::",
    "::1",
    "::2",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "febf::1",
    "fec0::1",
    "ff02::1",
    "2001:db8::1",
    "2001::1",
    "2001:1ff::1",
    "3fff::1",
    "100::1",
    "64:ff9b:1::808:808",
    "5f00::1",
    "255.255.255.255",
  ])("refuses the special address %s", (address) => expect(isPublicAddress(address)).toBe(false));

  it("keeps public addresses public, in every form that carries them", () => {
    const isBlocked = (bytes: number[]) =>
      BLOCKED_IPV4_RANGES.some((range) => {
        const [base = "", bits = "32"] = range.split("/");
        const n = (parts: number[]) => parts.reduce((acc, part) => acc * 256 + part, 0);
        const width = 2 ** (32 - Number(bits));
        return Math.floor(n(bytes) / width) === Math.floor(n(base.split(".").map(Number)) / width);
      });
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (bytes) => {
        fc.pre(!isBlocked(bytes));
        expect(isPublicAddress(bytes.join("."))).toBe(true);
        for (const form of carriers(bytes)) expect(isPublicAddress(form), form).toBe(true);
      }),
      { numRuns: 1000 },
    );
    for (const address of ["2606:4700::1111", "2a00:1450:4001::200e", "2001:4860:4860::8888"])
      expect(isPublicAddress(address)).toBe(true);
  });

  it("is false for anything that is not an IP literal", () => {
    for (const text of ["", "localhost", "1.2.3", "::ffff:1.2.3.4.5", "[::1]"])
      expect(isPublicAddress(text)).toBe(false);
  });
});

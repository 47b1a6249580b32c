import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { egressHostSchema } from "../protocol/provenance.ts";
import { callDestinations, disallowedDestinations, isAllowedHost } from "./egress.ts";

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const host = fc.tuple(label, label, fc.constantFrom("example", "test", "com")).map((parts) => parts.join("."));

/** Spellings of a URL to `host` that every URL parser reads as `host`. */
const spellings: Array<[string, (host: string) => string]> = [
  ["as is", (h) => `https://${h}/c?q=secret`],
  ["upper case", (h) => `HTTPS://${h.toUpperCase()}/c?q=secret`],
  ["a trailing dot", (h) => `https://${h}./c`],
  ["a port", (h) => `http://${h}:8443/c`],
  ["credentials before it", (h) => `https://trusted.example:pw@${h}/c`],
  ["a percent-encoded letter", (h) => `https://%${h.charCodeAt(0).toString(16)}${h.slice(1)}/c`],
  ["inside prose", (h) => `Please fetch <https://${h}/c?plan=beta> now.`],
  ["scheme-relative", (h) => `//${h}/c`],
  ["another scheme", (h) => `wss://${h}/socket`],
  ["no scheme", (h) => `${h}/c?q=secret`],
  ["in an e-mail address", (h) => `someone@${h}`],
];

describe("egress destinations", () => {
  it.each(spellings)("a URL spelled with %s names its host", (_, spell) => {
    fc.assert(
      fc.property(host, (h) => {
        expect(callDestinations({ url: spell(h) })).toContain(h);
        expect(disallowedDestinations({ url: spell(h) }, [h])).toEqual([]);
        expect(disallowedDestinations({ url: spell(h) }, [`other-${h}`])).toContain(h);
      }),
    );
  });

  it("an allowed name as a prefix, a suffix or a label of another host does not pass", () => {
    fc.assert(
      fc.property(host, label, (allowed, extra) => {
        for (const url of [
          `https://${allowed}.${extra}.test/c`,
          `https://${extra}${allowed}/c`,
          `https://${allowed}@${extra}.test/c`,
          `https://${extra}.test/${allowed}`,
          `https://${extra}.test/?next=${allowed}`,
        ])
          expect(disallowedDestinations({ url }, [allowed]).length, url).toBeGreaterThan(0);
      }),
    );
  });

  it("a host is judged by its bytes: an IPv4 address in hex or as one number is the dotted one", () => {
    expect(callDestinations({ url: "http://0x7f.0.0.1/" })).toEqual(["127.0.0.1"]);
    expect(callDestinations({ url: "http://2130706433/" })).toEqual(["127.0.0.1"]);
    expect(disallowedDestinations({ url: "http://0x7f.0.0.1/" }, ["127.0.0.1"])).toEqual([]);
    expect(callDestinations({ url: "https://bücher.example/" })).toEqual(["xn--bcher-kva.example"]);
  });

  it("every value counts, nested or not; a call that names no host has an unknown destination", () => {
    expect(callDestinations({ a: ["x", { b: "https://one.example/" }], c: "see two.example" })).toEqual([
      "one.example",
      "two.example",
    ]);
    expect(disallowedDestinations({ query: "beta-may" }, ["one.example"])).toEqual(["?"]);
    // A tool's own fixed hosts count with its arguments'.
    expect(disallowedDestinations({ query: "beta-may" }, ["agent.example"], ["agent.example"])).toEqual([]);
    expect(disallowedDestinations({ url: "https://x.test/" }, ["agent.example"], ["agent.example"])).toEqual([
      "x.test",
    ]);
  });

  it("*.domain allows its subdomains, not the domain, nor a name that merely ends like it", () => {
    expect(isAllowedHost("api.corp.example", ["*.corp.example"])).toBe(true);
    expect(isAllowedHost("a.b.corp.example", ["*.corp.example"])).toBe(true);
    expect(isAllowedHost("corp.example", ["*.corp.example"])).toBe(false);
    expect(isAllowedHost("evilcorp.example", ["*.corp.example"])).toBe(false);
    expect(isAllowedHost("corp.example.", ["corp.example"])).toBe(true);
  });

  it("the allowlist takes hostnames as the parser writes them, nothing else", () => {
    for (const ok of ["corp.example", "*.corp.example", "127.0.0.1", "[::1]", "xn--bcher-kva.example"])
      expect(egressHostSchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of [
      "Corp.example",
      "https://corp.example",
      "corp.example/x",
      "corp.example:443",
      "*corp.example",
      "",
    ])
      expect(egressHostSchema.safeParse(bad).success, bad).toBe(false);
  });
});

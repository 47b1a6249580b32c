import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appNameProblem } from "./app-name.ts";

describe("appNameProblem", () => {
  it("accepts npm's new package names", () => {
    for (const name of ["my-agent", "agent2", "a", "weather.bot", "x_y", "tilde~ok", "a".repeat(214)])
      expect(appNameProblem(name), name).toBeUndefined();
  });

  it("refuses names npm would refuse, saying why", () => {
    expect(appNameProblem("")).toBe("is empty");
    expect(appNameProblem("My-Agent")).toBe('has upper-case letters: try "my-agent"');
    expect(appNameProblem(".hidden")).toBe("starts with . or _");
    expect(appNameProblem("_private")).toBe("starts with . or _");
    expect(appNameProblem("node_modules")).toBe("is a name npm reserves");
    expect(appNameProblem("favicon.ico")).toBe("is a name npm reserves");
    expect(appNameProblem("a".repeat(215))).toBe("is longer than 214 characters");
    for (const name of ["my agent", "@scope/agent", "a/b", "agent!", "ägent", "-dash", "semi;colon"])
      expect(appNameProblem(name), name).toMatch(/may hold only/);
  });

  it("accepts only names that are URL-safe, lower-case, short and not hidden", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 230 }), (name) => {
        if (appNameProblem(name) !== undefined) return;
        expect(encodeURIComponent(name)).toBe(name);
        expect(name).toBe(name.toLowerCase());
        expect(name.length).toBeGreaterThan(0);
        expect(name.length).toBeLessThanOrEqual(214);
        expect(name).not.toMatch(/^[._]/);
      }),
    );
  });
});

import { describe, expect, it } from "vitest";
import { replaceSection } from "./readme-section.ts";

describe("replaceSection", () => {
  it("replaces only the body between the markers, again and again", () => {
    const text = "a\n<!-- t:start -->\nold\n<!-- t:end -->\nb\n";
    const once = replaceSection(text, "t", "new\n");
    expect(once).toBe("a\n<!-- t:start -->\nnew\n<!-- t:end -->\nb\n");
    expect(replaceSection(once, "t", "new")).toBe(once);
  });

  it("throws when the section is missing", () => {
    expect(() => replaceSection("no markers", "t", "x")).toThrow(/no <!-- t:start -->/);
  });
});

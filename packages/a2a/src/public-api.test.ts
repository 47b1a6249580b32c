// The package root's export list, pinned: changing what `@sema-agent/a2a` offers means changing
// these lists on purpose. Values are read from the module, type names from the entry's source.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "./index.ts";

const VALUES = ["A2AToolError", "DEFAULT_TOOL_NAME", "delegateA2A"];
const TYPES = [
  "A2AFailureReason",
  "A2AProgress",
  "A2AToken",
  "A2AToolErrorOptions",
  "A2ATransport",
  "DelegateA2AInput",
  "DelegateA2AOptions",
];

describe("@sema-agent/a2a's root", () => {
  it("exports these values and types, nothing else", () => {
    expect(Object.keys(root).sort()).toEqual(VALUES);
    const text = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    const names = [...text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap(([, list = ""]) =>
      list
        .split(",")
        .map((item) => item.trim().replace(/^type\s+/, ""))
        .filter((name) => name !== ""),
    );
    expect(names.filter((name) => !VALUES.includes(name)).sort()).toEqual(TYPES);
  });
});

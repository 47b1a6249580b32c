// The package root's export list, pinned: changing what `@sema-agent/otel` offers means changing
// these lists on purpose. Values are read from the module, type names from the entry's source.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as root from "./index.ts";

const VALUES = [
  "CAPTURE_CONTENT_ENV",
  "ERROR_TYPE",
  "GEN_AI",
  "LEG_SPAN",
  "OPERATION",
  "SEMA",
  "SPAN_EVENT",
  "SpanFold",
  "callTraceparent",
  "foldSpans",
  "spanIdOf",
  "traceEmit",
  "traceIdOf",
  "traceTask",
];
const TYPES = [
  "AttributeValue",
  "SpanAttributes",
  "SpanEventRecord",
  "SpanFoldOptions",
  "SpanLinkRecord",
  "SpanRecord",
  "SpanStatusRecord",
  "TraceEmit",
  "TraceEmitOptions",
  "TraceOptions",
  "TracePlacement",
];

describe("@sema-agent/otel's root", () => {
  it("exports these values and types, nothing else", () => {
    expect(Object.keys(root).sort()).toEqual([...VALUES].sort());
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

import { describe, expect, it } from "vitest";
import { summarize } from "./stats.ts";
import { formatNumber, formatTable } from "./table.ts";

describe("bench helpers", () => {
  it("summarizes rounds as median, min and max", () => {
    expect(summarize([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(summarize([4, 1, 3, 2])).toEqual({ median: 2.5, min: 1, max: 4, n: 4 });
    expect(() => summarize([])).toThrow("no samples");
  });

  it("formats numbers with as many decimals as their size needs", () => {
    expect(formatNumber(226152.4)).toBe("226,152");
    expect(formatNumber(61.54)).toBe("61.5");
    expect(formatNumber(0.534)).toBe("0.53");
    expect(formatNumber(0.0274)).toBe("0.027");
  });

  it("prints an aligned Markdown table with the target verdict on the median", () => {
    const table = formatTable([
      {
        subject: "A",
        metric: "appends",
        unit: "appends/s",
        samples: [10, 30, 20],
        target: { value: 15, higher: true },
      },
      { subject: "B", metric: "read", unit: "ms", samples: [5], target: { value: 4, higher: false } },
    ]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
    expect(lines[2]).toContain("| 20.0 ");
    expect(lines[2]).toContain("10.0 – 30.0");
    expect(lines[2]).toContain("≥ 15.0 ✓ met");
    expect(lines[3]).toContain("≤ 4.00 ✗ missed");
  });
});

import { describe, expect, it } from "vitest";
import { escapeXml, renderChart, scaleFor } from "./chart.ts";

describe("peer chart", () => {
  it("scales linearly from zero, or over whole decades on a log scale", () => {
    const linear = scaleFor([5, 10], false, 100);
    expect(linear(10)).toBe(100);
    expect(linear(5)).toBe(50);
    const log = scaleFor([0.1, 10], true, 100);
    // Decades 0.01 – 10: the smallest bar is a third of the span, not zero.
    expect(log(0.1)).toBeCloseTo(100 / 3);
    expect(log(1)).toBeCloseTo(200 / 3);
    expect(log(10)).toBeCloseTo(100);
    expect(log(0)).toBe(0);
  });

  it("writes a self-contained SVG with one bar per framework and escaped labels", () => {
    const svg = renderChart("A <title>", [
      {
        title: "Wall time per turn",
        unit: "ms",
        log: true,
        groups: [
          {
            label: "w & co",
            bars: [
              { name: "Sema", median: 0.1, min: 0.09, max: 0.2 },
              { name: "pi", median: 1, min: 1, max: 1 },
            ],
          },
        ],
      },
    ]);
    expect(svg.startsWith("<svg xmlns=")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("A &lt;title&gt;");
    expect(svg).toContain("w &amp; co");
    // Legend swatches plus one bar each, plus the background.
    expect(svg.match(/<rect /g)).toHaveLength(5);
    expect(escapeXml(`"a"`)).toBe("&quot;a&quot;");
  });
});

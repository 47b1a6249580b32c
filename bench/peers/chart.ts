/**
 * A dependency-free SVG chart for the peer benchmark: panels of horizontal bars (median, with the
 * min – max of the rounds as a whisker), grouped by workload, one colour per framework.
 */

/** One framework's figure in a group. */
export interface Bar {
  name: string;
  median: number;
  min: number;
  max: number;
}

/** A workload's bars. */
export interface BarGroup {
  label: string;
  bars: Bar[];
}

/** A panel: one metric over several workloads; `log` for figures that span orders of magnitude. */
export interface Panel {
  title: string;
  unit: string;
  log: boolean;
  groups: BarGroup[];
}

const PALETTE = ["#2563eb", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6", "#0ea5e9", "#64748b"];
const WIDTH = 900;
const LABEL_W = 230;
const VALUE_W = 90;
const BAR_H = 14;
const GAP = 3;

/** Escape text for SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function compact(value: number): string {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** Maps values to x offsets in [0, span]: linear from 0, or log10 over the panel's range. */
export function scaleFor(values: readonly number[], log: boolean, span: number): (value: number) => number {
  const positive = values.filter((v) => v > 0);
  const max = Math.max(...positive, Number.MIN_VALUE);
  if (!log) return (value) => (Math.max(0, value) / max) * span;
  // One decade below the smallest value, so the shortest bar still shows.
  const lo = Math.floor(Math.log10(Math.min(...positive, max)) - 1e-9);
  const hi = Math.ceil(Math.log10(max) - 1e-9);
  const decades = Math.max(1, hi - lo);
  return (value) => (value <= 0 ? 0 : ((Math.log10(value) - lo) / decades) * span);
}

/** The whole chart; frameworks are coloured in order of first appearance, with a legend on top. */
export function renderChart(title: string, panels: readonly Panel[]): string {
  const names: string[] = [];
  for (const panel of panels)
    for (const group of panel.groups) for (const bar of group.bars) if (!names.includes(bar.name)) names.push(bar.name);
  const colour = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length] ?? "#000";
  const parts: string[] = [];
  let y = 24;
  parts.push(`<text x="10" y="${y}" font-size="16" font-weight="bold">${escapeXml(title)}</text>`);
  y += 20;
  let x = 10;
  for (const name of names) {
    parts.push(`<rect x="${x}" y="${y - 10}" width="12" height="12" fill="${colour(name)}"/>`);
    parts.push(`<text x="${x + 16}" y="${y}" font-size="12">${escapeXml(name)}</text>`);
    x += 24 + name.length * 7;
  }
  y += 16;
  const span = WIDTH - LABEL_W - VALUE_W - 10;
  for (const panel of panels) {
    y += 18;
    const scaleNote = panel.log ? "log scale" : "linear";
    parts.push(
      `<text x="10" y="${y}" font-size="14" font-weight="bold">${escapeXml(panel.title)} (${escapeXml(panel.unit)}, ${scaleNote}, lower is better)</text>`,
    );
    y += 8;
    const scale = scaleFor(
      panel.groups.flatMap((g) => g.bars.flatMap((b) => [b.median, b.max])),
      panel.log,
      span,
    );
    for (const group of panel.groups) {
      y += 14;
      parts.push(`<text x="10" y="${y}" font-size="12" font-style="italic">${escapeXml(group.label)}</text>`);
      y += 4;
      for (const bar of group.bars) {
        const w = Math.max(1, scale(bar.median));
        const mid = y + BAR_H / 2;
        parts.push(
          `<text x="${LABEL_W - 6}" y="${mid + 4}" font-size="11" text-anchor="end">${escapeXml(bar.name)}</text>`,
        );
        parts.push(
          `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${colour(bar.name)}"/>`,
        );
        const x1 = LABEL_W + scale(bar.min);
        const x2 = LABEL_W + scale(bar.max);
        parts.push(
          `<line x1="${x1.toFixed(1)}" y1="${mid}" x2="${x2.toFixed(1)}" y2="${mid}" stroke="#111" stroke-width="1"/>`,
        );
        parts.push(
          `<text x="${(LABEL_W + Math.max(w, scale(bar.max)) + 4).toFixed(1)}" y="${mid + 4}" font-size="11">${compact(bar.median)}</text>`,
        );
        y += BAR_H + GAP;
      }
    }
    y += 6;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}

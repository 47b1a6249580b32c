/**
 * The tables of bench/README.md (and the figures the docs quote), generated from the results files
 * under bench/results/. Each generated section sits between `<!-- results:<name>:start -->` and
 * `<!-- results:<name>:end -->`; `npm run bench:tables` rewrites them, and results.test.ts fails
 * when one differs from what these functions make of the files now.
 *
 * Each benchmark's section shows its latest run (and, where a benchmark has one, a short trend:
 * the runs before it, or the "before" a change was measured against), then what the run showed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { replaceSection } from "./readme-section.ts";
import { type LoadedResults, loadResults } from "./results.ts";
import {
  beforeAfterSection,
  fixedCostSection,
  harnessSection,
  injectionObedient,
  injectionSection,
  liveSection,
  otelSection,
  peersSection,
  sseSection,
} from "./results-benches.ts";
import { joinBlocks, pivotSection } from "./results-format.ts";
import { headlines } from "./results-headlines.ts";

// ---------------------------------------------------------------- the sections

/** A generated section: the file (from the repository's root), its name, and what renders it. */
export interface Section {
  file: string;
  name: string;
  render(all: readonly LoadedResults[]): string;
}

export const README = "bench/README.md";

export const SECTIONS: readonly Section[] = [
  {
    file: README,
    name: "store",
    render: (all) => joinBlocks(pivotSection(all, "store", 2), pivotSection(all, "fold")),
  },
  { file: README, name: "fork", render: (all) => pivotSection(all, "fork") },
  { file: README, name: "provenance", render: (all) => pivotSection(all, "provenance") },
  { file: README, name: "store-ops", render: (all) => pivotSection(all, "store-ops") },
  { file: README, name: "replay", render: (all) => pivotSection(all, "replay") },
  { file: README, name: "console", render: (all) => pivotSection(all, "console") },
  { file: README, name: "evals", render: (all) => pivotSection(all, "evals") },
  { file: README, name: "harness", render: harnessSection },
  { file: README, name: "peers", render: peersSection },
  { file: README, name: "otel", render: otelSection },
  { file: README, name: "scale-out", render: (all) => pivotSection(all, "scale-out", 2) },
  { file: README, name: "live", render: liveSection },
  { file: README, name: "fixed-cost", render: fixedCostSection },
  { file: README, name: "durable-turn", render: (all) => pivotSection(all, "durable-turn") },
  { file: README, name: "sse", render: sseSection },
  {
    file: README,
    name: "serving-under-load",
    render: (all) => beforeAfterSection(all, ["sse-slow", "soak", "fair-share-serve", "task-get", "task-get-serve"]),
  },
  {
    file: README,
    name: "protocols",
    render: (all) => joinBlocks(pivotSection(all, "mcp"), pivotSection(all, "a2a")),
  },
  { file: README, name: "injection", render: injectionSection },
  { file: "docs/guide/benchmarks.md", name: "headlines", render: headlines },
  { file: "docs/guide/benchmarks.md", name: "evals", render: (all) => pivotSection(all, "evals") },
  { file: "docs/guide/security.md", name: "injection-obedient", render: injectionObedient },
];

/** A file with generated sections: its text now, and with every section rendered from `all`. */
export interface GeneratedFile {
  file: string;
  current: string;
  generated: string;
}

/** Render every section of every file from the results files (read from `all`, default bench/results/). */
export function generateFiles(repoDir: string, all: readonly LoadedResults[] = loadResults()): GeneratedFile[] {
  const files = [...new Set(SECTIONS.map((section) => section.file))];
  return files.map((file) => {
    const current = readFileSync(join(repoDir, file), "utf8");
    let generated = current;
    for (const section of SECTIONS.filter((each) => each.file === file))
      generated = replaceSection(generated, `results:${section.name}`, section.render(all));
    return { file, current, generated };
  });
}

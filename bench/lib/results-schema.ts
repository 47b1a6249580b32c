/**
 * The shape of a benchmark run's results file, bench/results/<bench>/<date>-<commit>.json: what
 * was run, on which code, machine and command, and its figures as rows. The tables in
 * bench/README.md (and the docs that quote them) are generated from these files
 * (`npm run bench:tables`), so a figure is written once, here, with the run it belongs to.
 *
 * Version 1. A change that old files would not pass is a new `schemaVersion`, with the old files
 * migrated in the same commit.
 */
import { z } from "zod";
import { summarize } from "./stats.ts";

export const SCHEMA_VERSION = 1;

/** Every benchmark with a results folder: the `bench:<name>` script (or the workspace's script). */
export const BENCHES = [
  "store",
  "fold",
  "harness",
  "sse",
  "sse-slow",
  "scale-out",
  "live",
  "fixed-cost",
  "peers",
  "task-get",
  "task-get-serve",
  "a2a",
  "otel",
  "fair-share-serve",
  "soak",
  "mcp",
  "injection",
  "provenance",
  "fork",
  "replay",
  "evals",
  "store-ops",
  "console",
  "durable-turn",
] as const;

export type BenchName = (typeof BENCHES)[number];

/** A goal: the median must be at most (`higher: false`) or at least (`higher: true`) `value`. */
export const Target = z.strictObject({ value: z.number(), higher: z.boolean() });

/**
 * One figure: a (subject, metric) of the run — the median of its rounds with their min and max,
 * or a single reading. Figures taken over from a table that printed only a range (e.g. over the
 * runs of one sitting) have `min` and `max` without a median.
 */
export const MeasureRow = z
  .strictObject({
    /** What was measured, e.g. "SqliteStore (file)"; the benchmark's own label. */
    subject: z.string().min(1),
    /** e.g. "single-event appends, 20,000 transactions". */
    metric: z.string().min(1),
    /** e.g. "appends/s", "ms", "MiB", "×". */
    unit: z.string().min(1),
    /** A further key some benchmarks have: the peers' workload, the fixed-cost task. */
    workload: z.string().min(1).optional(),
    median: z.number().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    /** How many rounds the median, min and max are over. */
    rounds: z.number().int().positive().optional(),
    /** When min – max is the spread over several runs (each its own figure) rather than rounds. */
    runs: z.number().int().positive().optional(),
    /** Every round's reading, when the run kept them (`--save` does). */
    samples: z.array(z.number()).min(1).optional(),
    target: Target.optional(),
    /** This figure over the baseline subject's (the peers: ÷ Sema), from the unrounded medians. */
    ratio: z.number().positive().optional(),
    /** A word on this figure alone, e.g. "LeaseLost" or "the first request". */
    note: z.string().min(1).optional(),
  })
  .superRefine((row, ctx) => {
    if (row.median === undefined && (row.min === undefined || row.max === undefined))
      ctx.addIssue({ code: "custom", message: "a row needs a median, or a min and a max" });
    if (row.min !== undefined && row.max !== undefined && row.min > row.max)
      ctx.addIssue({ code: "custom", message: `min ${row.min} is above max ${row.max}` });
    if (row.median !== undefined && row.min !== undefined && row.median < row.min)
      ctx.addIssue({ code: "custom", message: `median ${row.median} is below min ${row.min}` });
    if (row.median !== undefined && row.max !== undefined && row.median > row.max)
      ctx.addIssue({ code: "custom", message: `median ${row.median} is above max ${row.max}` });
    if (row.samples !== undefined) {
      const s = summarize(row.samples);
      if (row.median !== s.median || row.min !== s.min || row.max !== s.max || row.rounds !== s.n)
        ctx.addIssue({ code: "custom", message: "median, min, max and rounds must summarize the samples" });
    }
  });

/** A count out of a total (the injection suite's rates). */
export const Ratio = z.strictObject({ count: z.number().int().nonnegative(), total: z.number().int().nonnegative() });

/** One row of the injection suite's table: model × condition × environment (`all`: their sum). */
export const InjectionRow = z.strictObject({
  model: z.string().min(1),
  condition: z.enum(["naive", "framing", "policy"]),
  environment: z.string().min(1),
  attackSuccess: Ratio,
  utilityUnderAttack: Ratio,
  benignUtility: Ratio,
  benignApprovals: Ratio,
});

/** What the run ran on. Figures recorded before `--save` existed have what their text said. */
export const Machine = z.strictObject({
  /** `nproc`: the CPUs the process could run on. */
  cpus: z.number().int().positive().optional(),
  cpuModel: z.string().min(1).optional(),
  memoryGiB: z.number().positive().optional(),
  /** e.g. "v24.21.0". */
  node: z.string().min(1).optional(),
  os: z.string().min(1).optional(),
  /** The 1-minute load average at the start: well above 0 means other work shared the CPUs. */
  load1: z.number().nonnegative().optional(),
  /** The lowest and highest load average seen (during the run, or over a sitting's runs). */
  loadRange: z.tuple([z.number().nonnegative(), z.number().nonnegative()]).optional(),
  /** Anything else about the machine that matters to the figures, e.g. "other builds running". */
  note: z.string().min(1).optional(),
});

const common = {
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** The commit whose code ran (short hash); `-dirty` when the tree had uncommitted changes. */
  commit: z.string().regex(/^[0-9a-f]{7,40}(-dirty)?$/),
  /** When the run started, UTC: a day, or a day and a time (ISO 8601, `Z`). */
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/),
  machine: Machine,
  /** How it was run, e.g. "npm run bench:store". */
  command: z.string().min(1),
  /**
   * The same benchmark run on older code in the same sitting, for comparison with the run after
   * it (a "before"); among runs of the same date it sorts first.
   */
  baseline: z.boolean().optional(),
  /** About the run as a whole: what it left out, where its commit or time comes from. */
  note: z.string().min(1).optional(),
  /** What the run showed, as Markdown list items, printed under its table. */
  notes: z.array(z.string().min(1)).optional(),
};

const measured = BENCHES.filter((bench): bench is Exclude<BenchName, "injection"> => bench !== "injection");

/** A results file. */
export const ResultsFile = z.discriminatedUnion("bench", [
  z.strictObject({ ...common, bench: z.enum(measured), rows: z.array(MeasureRow).min(1) }),
  z.strictObject({ ...common, bench: z.literal("injection"), rows: z.array(InjectionRow).min(1) }),
]);

export type MeasureRow = z.infer<typeof MeasureRow>;
export type InjectionRow = z.infer<typeof InjectionRow>;
export type Machine = z.infer<typeof Machine>;
export type ResultsFile = z.infer<typeof ResultsFile>;
export type MeasuredResults = Extract<ResultsFile, { rows: MeasureRow[] }>;
export type InjectionResults = Extract<ResultsFile, { bench: "injection" }>;

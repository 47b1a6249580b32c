/**
 * Request and response bodies of the evaluation routes (`/v1/evals/…`, docs/guide/evals.md#over-
 * http): datasets saved by name and version, experiments run on the serving node, their results
 * and comparisons. The responses are `@sema-agent/evals`'s own results (`ExperimentResult`,
 * `ExperimentComparison`), sent as they are.
 */
import { recordNameSchema, scorerNameSchema } from "@sema-agent/core/protocol";
import { MAX_CASES, SCORER_SPECS } from "@sema-agent/evals";
import { z } from "zod";
import { idSchema, TaskStatus, Usage } from "./common.ts";
import { named } from "./registry.ts";
import { AGENT_NAME_PATTERN } from "./tasks.ts";

const version = z.number().int().positive();

export const DatasetParams = z.strictObject({
  name: recordNameSchema.describe("The dataset's name: a letter or digit, then letters, digits, `_ . : -`."),
});

export const DatasetQuery = z.strictObject({
  version: z.coerce.number().int().positive().optional().describe("A saved version; default the latest."),
});

export const DatasetFromTasksRequest = named(
  "DatasetFromTasksRequest",
  z.strictObject({
    fromTasks: z
      .array(idSchema)
      .min(1)
      .max(MAX_CASES)
      .describe(
        "The caller's tasks, one case each (objective as `input`, final answer as `expected`): another principal's task is a 404, as an unknown id.",
      ),
  }),
);

export const DatasetSaved = named(
  "DatasetSaved",
  z.object({
    name: z.string(),
    version: version.describe("1 for the first save of the name, then one more for each."),
    cases: z.number().int().describe("How many cases it has."),
    digest: z.string().describe("SHA-256 of the cases as canonical JSON: the same cases, the same digest."),
    createdAt: z.string(),
  }),
);

export const DatasetList = named(
  "DatasetList",
  z.object({
    datasets: z.array(DatasetSaved).describe("The caller's datasets, the latest version of each, by name."),
  }),
);

const scorerSpec = z
  .string()
  .min(1)
  .max(200)
  .describe(`A scorer in text: ${SCORER_SPECS.join(", ")}. \`cost=\` needs the server's quota prices.`);
const gateText = z.string().min(1).max(200).describe('`"<scorer> <op> <number>"`, op one of >= > <= < ==.');
const concurrency = z
  .number()
  .int()
  .min(1)
  .max(256)
  .describe(
    "Cases run at once: at most `maxExperimentConcurrency` and the principal's `concurrentTasks` quota. Default 4 (or the lower of those).",
  );

export const StartExperimentRequest = named(
  "StartExperimentRequest",
  z.strictObject({
    dataset: recordNameSchema.describe("A dataset of the caller's, by name."),
    version: version.optional().describe("Its version; default the latest."),
    agent: z
      .string()
      .regex(AGENT_NAME_PATTERN)
      .optional()
      .describe("A served agent's name; default the default agent. One not served is a 409 `UnknownAgent`."),
    scorers: z.array(scorerSpec).min(1).max(32),
    concurrency: concurrency.optional(),
    name: z.string().max(200).optional().describe("A label for people; not unique."),
    gates: z
      .array(gateText)
      .max(32)
      .optional()
      .describe(
        "Checked now (each on a scorer of the run) and echoed back: pass them as `?gate=` to `GET /v1/evals/experiments/{experimentId}` for the verdict.",
      ),
  }),
);

export const ResumeExperimentRequest = named(
  "ResumeExperimentRequest",
  z.strictObject({
    scorers: z.array(scorerSpec).min(1).max(32).describe("The experiment's own scorers (any other set is a 400)."),
    concurrency: concurrency.optional(),
  }),
);

export const ExperimentAccepted = named(
  "ExperimentAccepted",
  z.object({
    experimentId: z.string(),
    gates: z.array(z.string()).optional().describe("The gates given, as checked."),
  }),
);

export const ExperimentParams = z.strictObject({ experimentId: recordNameSchema });
export const CompareParams = z.strictObject({ experimentId: recordNameSchema, otherExperimentId: recordNameSchema });

export const ExperimentQuery = z.strictObject({
  gate: gateText
    .optional()
    .describe("A gate to check the results against; repeat it for more (`?gate=a>=0.9&gate=b>0`)."),
});

export const ExperimentListing = named(
  "ExperimentListing",
  z.object({
    experimentId: z.string(),
    name: z.string(),
    agent: z.string(),
    dataset: z.string().describe("The dataset's name (or the first 12 hex of its digest when it had none)."),
    cases: z.number().int(),
    createdAt: z.string(),
    running: z.boolean().describe("Running on this node now."),
  }),
);

export const ExperimentListQuery = z.strictObject({
  summary: z
    .enum(["true", "false"])
    .optional()
    .describe("`true`: each experiment's results without their cases too (`summaries`), in this one request."),
});

const CaseScore = z.object({ value: z.number(), reason: z.string().optional() });

const CaseResult = named(
  "ExperimentCase",
  z.object({
    caseId: z.string(),
    taskId: z.string(),
    status: z.union([TaskStatus, z.literal("not-started")]),
    scores: z.record(z.string(), CaseScore),
    scoreErrors: z.record(z.string(), z.string()).optional(),
    turns: z.number().int(),
    usage: Usage,
    costUsd: z.number().optional(),
    durationMs: z.number(),
    error: z.string().optional(),
  }),
);

const Gate = z.object({ scorer: z.string(), op: z.enum([">=", ">", "<=", "<", "=="]), threshold: z.number() });

export const ExperimentResultBody = named(
  "ExperimentResult",
  z.object({
    experimentId: z.string(),
    name: z.string(),
    agent: z.string(),
    model: z.string().optional(),
    dataset: z.object({
      name: z.string().optional(),
      version: z.number().int().optional(),
      digest: z.string(),
      cases: z.number().int(),
    }),
    scorers: z.array(scorerNameSchema),
    cases: z.array(CaseResult),
    means: z
      .record(z.string(), z.number())
      .describe("Per scorer, the mean over the cases it scored; a scorer that scored none is absent."),
    totals: z.object({
      cases: z.number().int(),
      finished: z.number().int(),
      completed: z.number().int(),
      turns: z.number().int(),
      inputTokens: z.number().int(),
      outputTokens: z.number().int(),
      costUsd: z.number().optional(),
      durationMs: z.number(),
    }),
    running: z.boolean().describe("Running on this node now: poll until false for the final results."),
    failure: z
      .string()
      .optional()
      .describe("Why its last run on this node stopped on an error (a store outage …): resume it."),
    gateFailures: z
      .array(z.object({ gate: Gate, mean: z.number().optional(), message: z.string() }))
      .optional()
      .describe("With `?gate=`: the gates the results fail (empty: they pass)."),
  }),
);

/** An experiment's results without its cases: what a list of experiments shows of each. */
export const ExperimentSummary = named(
  "ExperimentSummary",
  ExperimentResultBody.omit({ cases: true, gateFailures: true }),
);

export const ExperimentList = named(
  "ExperimentList",
  z.object({
    experiments: z.array(ExperimentListing).describe("The caller's experiments, oldest first."),
    summaries: z
      .array(ExperimentSummary)
      .optional()
      .describe("With `?summary=true`: each one's results without their cases, in the same order."),
  }),
);

const Change = z.object({
  caseId: z.string(),
  scorer: z.string(),
  before: z.number(),
  after: z.number(),
  delta: z.number(),
});

export const ExperimentComparisonBody = named(
  "ExperimentComparison",
  z.object({
    a: z.object({ experimentId: z.string(), name: z.string() }),
    b: z.object({ experimentId: z.string(), name: z.string() }),
    scorers: z.array(
      z.object({
        scorer: z.string(),
        a: z.number().optional(),
        b: z.number().optional(),
        delta: z.number().optional(),
      }),
    ),
    regressions: z.array(Change).describe("Cases whose score fell, the largest fall first."),
    improvements: z.array(Change),
    onlyA: z.array(z.string()),
    onlyB: z.array(z.string()),
  }),
);

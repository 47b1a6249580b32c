/**
 * An experiment's record (`Store.putRecord`, kind `experiment`, named by its id): what ran —
 * the agent, the dataset by digest (and name and version when it was saved), the scorers — and
 * the task of each case, minted when the experiment is created. The ids are fixed before any task
 * exists, so an experiment resumed after a crash starts each case's task at most once: a case
 * whose task exists is continued or scored, never started again. Versioned (`v: 1`).
 */
import type { Store } from "@sema-agent/core";
import {
  InvalidInputError,
  type RecordListing,
  RecordNotFoundError,
  scorerNameSchema,
} from "@sema-agent/core/protocol";
import { newId } from "@sema-agent/core/store-kit";
import { z } from "zod";
import { caseIdSchema } from "../datasets/dataset-case.ts";
import { listAllRecords, recordStore } from "../datasets/dataset-records.ts";
import type { Dataset } from "../datasets/parse-dataset.ts";

/** The record kind experiments are kept under. */
export const EXPERIMENT_KIND = "experiment";

/** The body of an experiment's record, version 1. */
export const experimentRecordSchema = z.strictObject({
  v: z.literal(1),
  experimentId: z.string().min(1),
  /** A label for people (`--name`); not unique. */
  name: z.string().max(200),
  /** The agent's name the tasks were started for, and the model id recorded on them. */
  agent: z.string().min(1),
  model: z.string().min(1).exactOptional(),
  dataset: z.strictObject({
    name: z.string().min(1).exactOptional(),
    version: z.number().int().positive().exactOptional(),
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    cases: z.number().int().positive(),
  }),
  scorers: z.array(scorerNameSchema),
  cases: z.array(z.strictObject({ caseId: caseIdSchema, taskId: z.string().min(1) })).min(1),
});

/** An experiment's record (see {@link experimentRecordSchema}). */
export type ExperimentRecord = z.infer<typeof experimentRecordSchema>;

/** What a new experiment records. */
export interface NewExperiment {
  principal: string;
  name?: string;
  agent: string;
  model?: string;
  dataset: Dataset & { name?: string; version?: number };
  scorers: readonly string[];
}

/** Create an experiment's record, minting its id and one task id per case. */
export async function createExperiment(store: Store, input: NewExperiment): Promise<ExperimentRecord> {
  const records = recordStore(store, "runExperiment");
  const experimentId = newId();
  const dataset: ExperimentRecord["dataset"] = { digest: input.dataset.digest, cases: input.dataset.cases.length };
  if (input.dataset.name !== undefined) dataset.name = input.dataset.name;
  if (input.dataset.version !== undefined) dataset.version = input.dataset.version;
  const record: ExperimentRecord = {
    v: 1,
    experimentId,
    name: input.name ?? "",
    agent: input.agent,
    dataset,
    scorers: [...input.scorers],
    cases: input.dataset.cases.map((c) => ({ caseId: c.id, taskId: newId() })),
  };
  if (input.model !== undefined) record.model = input.model;
  await records.putRecord({
    kind: EXPERIMENT_KIND,
    principal: input.principal,
    name: experimentId,
    body: record,
    meta: {
      name: record.name,
      agent: record.agent,
      cases: record.cases.length,
      dataset: dataset.name ?? dataset.digest.slice(0, 12),
    },
    expectedVersion: 0,
  });
  return record;
}

/** An experiment's record; `RecordNotFound` when `principal` has none of that id. */
export async function loadExperimentRecord(
  store: Store,
  principal: string,
  experimentId: string,
): Promise<ExperimentRecord> {
  const records = recordStore(store, "loadExperiment");
  const stored = await records.getRecord({ kind: EXPERIMENT_KIND, principal, name: experimentId });
  if (stored === undefined) throw new RecordNotFoundError(EXPERIMENT_KIND, experimentId);
  const parsed = experimentRecordSchema.safeParse(stored.body);
  if (!parsed.success)
    throw new InvalidInputError(
      `experiment ${experimentId} has a record this version does not read: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  return parsed.data;
}

/** Every experiment of `principal`, in id order (ids are time-ordered: oldest first). */
export function listExperiments(store: Store, principal: string): Promise<RecordListing[]> {
  return listAllRecords(store, EXPERIMENT_KIND, principal, "listExperiments");
}

// The experiment CI runs: the dataset, the scorers that judge each case, and the gates.
import { readFileSync } from "node:fs";
import type { Store } from "@sema-agent/core";
import { defineScorer } from "@sema-agent/core/scoring";
import {
  type ExpectedToolCall,
  type ExperimentResult,
  exactMatch,
  parseDataset,
  parseGate,
  runExperiment,
  toolTrajectory,
} from "@sema-agent/evals";
import { supportAgent, type Variant } from "./agent.ts";

/** What the candidate must meet to merge. */
export const GATES = ["exact-match >= 0.9", "tool-trajectory >= 0.9"].map(parseGate);

/**
 * `tool-trajectory` against each case's own calls: a case's `expected` is its answer (for
 * `exact-match`), so the calls it expects are in its `metadata.toolCalls` (none: no call at all).
 */
const trajectory = defineScorer({
  name: "tool-trajectory",
  description: "The task made exactly the tool calls its case lists in metadata.toolCalls",
  score: (input, context) => {
    const calls = (input.metadata?.toolCalls ?? []) as unknown as ExpectedToolCall[];
    return toolTrajectory({ calls, order: "exact" }).score(input, context);
  },
});

/** Run dataset.jsonl as tasks of the `variant` agent on `store`, scored, and return the results. */
export async function runVariant(store: Store, variant: Variant): Promise<ExperimentResult> {
  return runExperiment({
    store,
    agent: supportAgent(variant),
    agentName: "support",
    dataset: await parseDataset(readFileSync(new URL("./dataset.jsonl", import.meta.url), "utf8")),
    scorers: [exactMatch(), trajectory],
    name: variant,
  });
}

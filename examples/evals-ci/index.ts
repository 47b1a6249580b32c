// An experiment as a CI step, offline: the support agent's baseline and its candidate (a new
// prompt) run over dataset.jsonl, each case scored, the two compared, and the candidate held to
// the gates. A gate that fails sets the exit code to 1, which fails the CI job. Here it fails on
// purpose: the candidate skips the lookup on one case and answers wrongly (README.md: to pass).
import { MemoryStore } from "@sema-agent/core";
import { checkGates, compareExperiments, formatComparison, formatExperiment } from "@sema-agent/evals";
import { GATES, runVariant } from "./experiment.ts";

const store = new MemoryStore();
const baseline = await runVariant(store, "baseline");
const candidate = await runVariant(store, "candidate");
console.log(`${formatExperiment(baseline)}\n\n${formatExperiment(candidate)}\n`);
const comparison = compareExperiments(baseline, candidate);
console.log(`${formatComparison(comparison)}\n`);
// Every verdict below 1 comes with its reason: what the CI log needs to say why.
for (const c of candidate.cases)
  for (const [scorer, score] of Object.entries(c.scores))
    if (score.reason !== undefined) console.log(`candidate ${c.caseId} ${scorer}: ${score.reason}`);

// The baseline passing is what makes the gates mean something: else the dataset or a scorer is off.
if (checkGates(baseline, GATES).length > 0) throw new Error("the baseline fails its own gates");
const failures = checkGates(candidate, GATES);
for (const failure of failures) console.log(`gate failed: ${failure.message}`);
if (failures.length > 0) process.exitCode = 1;
const regressed = [...new Set(comparison.regressions.map((change) => change.caseId))];
console.log(
  `candidate: ${failures.length} of ${GATES.length} gates failed (regressed: ${regressed.join(", ") || "none"}), ` +
    `exit code ${process.exitCode ?? 0}`,
);

/**
 * The Sema conditions: the same tools and model through the harness, with its frames (untrusted
 * output fenced, external text on its lane) and either `provenancePolicy: "allow"` (framing only)
 * or the default policy. A call the policy holds is answered by a scripted reviewer who denies it,
 * and counted: the approvals a person would have been asked for.
 */
import {
  decideApproval,
  loadTaskState,
  MemoryStore,
  type ProvenancePolicy,
  runLeg,
  sendInput,
  startTask,
} from "@sema-agent/core";
import type { ConditionRun, LoopInput } from "./naive-loop.ts";

const REVIEWER = { id: "reviewer", verified: true, issuer: "sema-evals" };
const PRINCIPAL = "local";

/** Run one task through Sema with `policy` (undefined: the defaults) to its end. */
export async function runSema(input: LoopInput, policy: ProvenancePolicy | undefined): Promise<ConditionRun> {
  const store = new MemoryStore();
  const agent = {
    model: input.model,
    tools: [...input.tools],
    // The naive loop's step cap, as a budget: a real model that loops parks instead of running on.
    budget: { maxTurns: input.maxSteps },
    ...(policy === undefined ? {} : { provenancePolicy: policy }),
  };
  const taskId = await startTask(store, { objective: input.prompt, principal: PRINCIPAL });
  if (input.external !== undefined) await sendInput(store, taskId, { text: input.external, source: "external" });
  let approvals = 0;
  // Each leg runs until the task ends or parks for a held call; the reviewer denies it, and the
  // next leg tells the model. Bounded: every round decides at least one call.
  for (let round = 0; round <= input.maxSteps; round += 1) {
    const outcome = await runLeg({ store, agent }, taskId);
    if (outcome.status !== "parked" || outcome.parkedReason !== "approval") {
      return { answer: outcome.result ?? "", approvals };
    }
    const state = await loadTaskState(store, taskId);
    const pending = state.approvals.filter((a) => a.decision === undefined);
    for (const approval of pending) {
      approvals += 1;
      await decideApproval(store, taskId, {
        callId: approval.callId,
        digest: approval.digest,
        decision: "deny",
        reason: "held by the provenance policy",
        actor: REVIEWER,
        principal: PRINCIPAL,
      });
    }
  }
  return { answer: "", approvals };
}

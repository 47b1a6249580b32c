// Records one task of the support agent and writes its export file, refund.jsonl, beside this
// file: `npm run record`. The file is committed; replay.test.ts replays it with the agent as the
// code now defines it, so a change that alters what the model is sent fails that test.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { decideApproval, MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { exportTask } from "@sema-agent/core/time-travel";
import { supportAgent } from "./agent.ts";

/** Run the task to its end in a fresh MemoryStore and return its export file. */
export async function record(): Promise<string> {
  const store = new MemoryStore();
  const agent = supportAgent();
  const taskId = await startTask(store, {
    objective: "Order 1042 arrived with a cracked lid. Please refund it.",
    principal: "tea-shop",
    actor: { id: "customer-7", verified: true },
  });
  const parked = await runLeg({ store, agent }, taskId);
  if (parked.status !== "parked") throw new Error(`expected a park for approval, got ${parked.status}`);
  const [pending] = (await store.read(taskId)).filter((event) => event.type === "approval_requested");
  if (pending?.type !== "approval_requested") throw new Error("no approval requested");
  await decideApproval(store, taskId, {
    callId: pending.callId,
    digest: pending.digest,
    decision: "approve",
    actor: { id: "sam@tea.shop", verified: true },
    principal: "tea-shop", // who decides: the default rule wants the task's own principal, verified
  });
  const done = await runLeg({ store, agent }, taskId);
  if (done.status !== "completed") throw new Error(`expected completion, got ${done.status}`);
  return exportTask(store, taskId);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = fileURLToPath(new URL("./refund.jsonl", import.meta.url));
  writeFileSync(path, await record());
  console.log(`recorded ${path}`);
}

// An approval decided from another process: the first process runs a task whose deploy tool needs
// a person's approval, so the task parks. A second process (a reviewer's UI, here this file run
// with the role "approve") opens the same SQLite file, lists the pending approvals and approves.
// The first process then continues the task, and the tool runs once, there.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent, defineTool } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { z } from "zod";

const [role = "main", path, taskId] = process.argv.slice(2);
const deployed: string[] = [];
const deploy = defineTool({
  name: "deploy",
  description: "Deploy a service",
  inputSchema: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }) => {
    deployed.push(service);
    return `deployed ${service}`;
  },
});
// by-transcript: the turn played follows from the task's log, whichever process runs the leg.
const model = new ScriptedModel(
  [{ toolCalls: [{ name: "deploy", input: { service: "api" } }] }, { text: "Deployed." }],
  {
    mode: "by-transcript",
  },
);

if (role === "approve") {
  if (path === undefined || taskId === undefined) throw new Error("usage: approve <db> <taskId>");
  const store = new SqliteStore({ path });
  const agent = createAgent({ model, store, tools: [deploy] });
  const [pending, ...more] = await agent.approvals(taskId);
  if (pending === undefined || more.length > 0 || pending.toolName !== "deploy") throw new Error("expected one deploy");
  // The decision is bound to the input shown (its digest); the default rule wants a verified actor.
  console.log(
    `second process (pid ${process.pid}): ${pending.toolName}(${JSON.stringify(pending.input)}) waits; ann approves it`,
  );
  await agent.approve(taskId, pending.callId, { actor: { id: "ann", verified: true }, reason: "looks fine" });
  await store.close();
} else {
  const db = join(mkdtempSync(join(tmpdir(), "sema-approval-")), "tasks.db");
  const store = new SqliteStore({ path: db });
  const agent = createAgent({ model, store, tools: [deploy] });
  const parked = await agent.run("Deploy the api");
  if (parked.parked?.reason !== "approval" || deployed.length > 0) throw new Error("expected to park for approval");
  console.log(
    `first process (pid ${process.pid}): task ${parked.taskId} parked (${parked.parked.reason}), nothing deployed`,
  );

  await childProcess("approve", db, parked.taskId);
  // Approving only records the decision; whichever host continues the task runs the tool.
  const done = await agent.continue(parked.taskId);
  await store.close();
  if (done.status !== "completed" || deployed.join() !== "api") throw new Error(`unexpected: ${done.status}`);
  console.log(`first process: continued, the tool ran here once: ${deployed.join(", ")}`);
  console.log(`approved in another process, deployed here: ${done.text}`);
}

/** Run this file again as `role`, with the same Node flags; resolves when it exits 0. */
function childProcess(...args: string[]): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, [...process.execArgv, self, ...args], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${args[0]} exited ${code}`))));
  });
}

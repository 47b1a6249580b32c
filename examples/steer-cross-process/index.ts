// A steer from a second process: two processes open one SQLite file. The first runs a task; while
// its leg runs (a slow tool), the second sends "use metric units" to the task. The running leg
// applies the steer at its next step boundary, so the model's next turn sees it. The handle keeps
// no state in memory: the file is all the two processes share.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAgent, defineTool, jsonSchema } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";

const [role = "main", path, taskId] = process.argv.slice(2);

if (role === "steer") {
  // The second process: any handle over the same file can send; it needs no model of its own.
  if (path === undefined || taskId === undefined) throw new Error("usage: steer <db> <taskId>");
  const store = new SqliteStore({ path });
  const agent = createAgent({ model: new ScriptedModel([]), store });
  const sent = await agent.send(taskId, "Use metric units, please.");
  // "received": a leg is running and will apply it; "parked" would mean no leg was running.
  if (sent.delivery !== "received") throw new Error(`expected a live steer, got ${sent.delivery}`);
  console.log(
    `second process (pid ${process.pid}): sent "Use metric units, please." to the running leg (${sent.delivery})`,
  );
  await store.close();
} else {
  const db = join(mkdtempSync(join(tmpdir(), "sema-steer-")), "tasks.db");
  const store = new SqliteStore({ path: db });
  // The slow tool: it starts the second process and waits for it, so the send surely lands
  // while this leg runs (a real tool would just take its time).
  const weather = defineTool({
    name: "weather",
    description: "Today's temperature",
    inputSchema: jsonSchema<{ city: string }>({
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    }),
    execute: async (_input, { taskId: id }) => {
      console.log(`first process (pid ${process.pid}): the weather tool runs; a second process steers meanwhile`);
      await childProcess("steer", db, id);
      return "77 F";
    },
  });
  const model = new ScriptedModel([
    { toolCalls: [{ name: "weather", input: { city: "Lisbon" } }] },
    // The second turn answers from what it was sent: the steer is in its transcript.
    (request) => ({
      text: JSON.stringify(request.transcript).includes("metric") ? "It is 25 °C in Lisbon." : "It is 77 °F.",
    }),
  ]);
  const result = await createAgent({ model, store, tools: [weather] }).run("How warm is Lisbon?");
  await store.close();
  if (result.status !== "completed" || !result.text.includes("°C"))
    throw new Error(`steer not applied: ${result.text}`);
  // The steer as the model's second turn received it: framed, attributed, after the tool's result.
  const seen = JSON.stringify(model.requests[1]?.transcript ?? []);
  console.log(
    `the model's next turn saw the steer: ${/\[The user sent[^"]*?metric units, please\./.exec(seen)?.[0].replace("\\n", " ") ?? "?"}`,
  );
  console.log(`steered mid-leg from another process: ${result.text}`);
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

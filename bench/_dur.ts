import { Session } from "node:inspector/promises";
import { mkdtempSync, writeFileSync } from "node:fs"; import { tmpdir } from "node:os"; import { join } from "node:path";
import { runLeg, startTask } from "@sema-agent/core";
import { lookupTool, ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
const turns = Number(process.argv[2] ?? 200);
const prof = process.argv[3] === "prof";
const script = Array.from({ length: turns }, (_, t) => t === turns - 1 ? { text: "Done." } : { text: "Looking", toolCalls: [{ name: "lookup", input: { key: `k${t}` } }] });
async function one(store: SqliteStore) {
  const taskId = await startTask(store, { objective: "Go" });
  const model = new ScriptedModel(script, { recordRequests: false });
  const o = await runLeg({ store, agent: { model, tools: [lookupTool] } }, taskId);
  if (o.status !== "completed") throw new Error(o.status);
}
const dir = mkdtempSync(join(tmpdir(), "dur-"));
const store = new SqliteStore({ path: join(dir, "d.db") });
await one(store);
const s = new Session(); if (prof) { s.connect(); await s.post("Profiler.enable"); await s.post("Profiler.setSamplingInterval", { interval: 100 }); await s.post("Profiler.start"); }
const cpu = process.cpuUsage(); const t = performance.now();
for (let i = 0; i < 3; i++) await one(store);
const c = process.cpuUsage(cpu);
console.log(`wall ${((performance.now() - t) / (3 * turns)).toFixed(3)} ms/turn, cpu ${((c.user + c.system) / 1000 / (3 * turns)).toFixed(3)} ms/turn, commits ${JSON.stringify(store.writeStats)}`);
if (prof) { const { profile } = await s.post("Profiler.stop"); writeFileSync("/tmp/prof/dur.cpuprofile", JSON.stringify(profile)); }

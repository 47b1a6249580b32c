/**
 * `GET /v1/tasks/{id}` against a real `sema serve` process (the TypeScript sources, a SQLite file,
 * no workers): the server process's CPU (utime + stime from /proc, 10 ms ticks) per GET of a tiny
 * task and of one with a ~50 MB log and a snapshot at its end. Each round stays within the default
 * rate limit's burst (120 requests per principal), then waits for it to refill. Linux only.
 *
 *   npm run task-get-serve -w @sema-agent/bench                      # 50 MB, 40 GETs each, 3 rounds
 *   npm run task-get-serve -w @sema-agent/bench -- --mb 10 --gets 20 --rounds 2
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { fold, startTask } from "@sema-agent/core";
import { stateToJson } from "@sema-agent/core/store-kit";
import { SqliteStore } from "@sema-agent/sqlite";
import {
  describeMachine,
  formatMachine,
  formatTable,
  meanJsonBytes,
  type ResultRow,
  realisticEvents,
} from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "50" },
    gets: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
    save: { type: "boolean", default: false },
  },
});
const machine = describeMachine();
const MB = Number(values.mb);
const GETS = Number(values.gets);
const ROUNDS = Number(values.rounds);
const ENTRY = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));
const TICK_MS = 10; // CLK_TCK = 100 on Linux

const dir = mkdtempSync(join(tmpdir(), "sema-bench-serve-"));
const db = join(dir, "sema.db");
const script = join(dir, "turns.json");
writeFileSync(script, JSON.stringify({ turns: [{ text: "unused" }] }));

const store = new SqliteStore({ path: db });
async function taskOf(mb: number): Promise<string> {
  const taskId = await startTask(store, { objective: "Read status", principal: "local" });
  const count = Math.ceil((mb * 2 ** 20) / meanJsonBytes(realisticEvents(300)));
  for (let done = 0; done < count; done += 1_000) {
    const { lastSeq } = await store.getTask(taskId);
    await store.append(taskId, realisticEvents(Math.min(1_000, count - done)), { expectedSeq: lastSeq });
  }
  const { lastSeq } = await store.getTask(taskId);
  await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], { expectedSeq: lastSeq });
  const state = fold(await store.read(taskId));
  await store.putSnapshot({ taskId, seq: state.lastSeq, v: state.v, state: stateToJson(state) });
  return taskId;
}
const tiny = await taskOf(0);
const big = await taskOf(MB);
const events = (await store.getTask(big)).lastSeq;
await store.close();

const child = spawn(
  process.execPath,
  [ENTRY, "serve", "--port", "0", "--workers", "0", "--db", db, "--model", `script:${script}`],
  { cwd: dir, stdio: ["ignore", "pipe", "inherit"] },
);
let out = "";
child.stdout?.on("data", (chunk: Buffer) => {
  out += chunk.toString();
});
const deadline = Date.now() + 30_000;
while (!/Bearer <token>/.test(out)) {
  if (Date.now() > deadline) throw new Error(`sema serve did not start:\n${out}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const url = /serving (http:\/\/\S+)/.exec(out)?.[1] ?? "";
const token = /\n\n {2}(\S+)\n\n/.exec(out)?.[1] ?? "";
const headers = { authorization: `Bearer ${token}` };

function cpuTicks(): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}
async function cpuPerGet(taskId: string): Promise<number> {
  const start = cpuTicks();
  for (let i = 0; i < GETS; i++) {
    const response = await fetch(`${url}/v1/tasks/${taskId}`, { headers });
    if (response.status !== 200) throw new Error(`GET: ${response.status}`);
    await response.arrayBuffer();
  }
  return ((cpuTicks() - start) * TICK_MS) / GETS;
}

const rows: ResultRow[] = [
  { subject: "sema serve, tiny task", metric: "server CPU per GET", unit: "ms", samples: [] },
  { subject: `sema serve, ${MB} MB-log task`, metric: "server CPU per GET", unit: "ms", samples: [] },
];
try {
  // Warm-up (JIT, page cache), then let the rate limit refill.
  for (let i = 0; i < 10; i++) for (const taskId of [tiny, big]) await fetch(`${url}/v1/tasks/${taskId}`, { headers });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  for (let round = 0; round < ROUNDS; round++) {
    // The rate limit refills 10 requests a second: wait out the previous round's.
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, (2 * GETS * 1000) / 10));
    rows[0]?.samples.push(await cpuPerGet(tiny));
    rows[1]?.samples.push(await cpuPerGet(big));
  }
} finally {
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}
console.log(formatMachine(machine));
console.log(`big task: ${events.toLocaleString("en-US")} events (~${MB} MB), ${GETS} GETs per task per round\n`);
console.log(formatTable(rows));
saveIfAsked("task-get-serve", machine, rows);

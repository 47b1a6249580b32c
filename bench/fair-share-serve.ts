/**
 * Fairness between principals against a real `sema serve` process (TypeScript sources, a SQLite
 * file, 4 workers): principal A queues 60 tasks whose model takes `--task-ms` each, then principal
 * B creates one such task; reported is how long B's task took from creation to `completed`. With
 * oldest-first claims it waits for A's whole queue (~60 / 4 × task-ms); with fair claims, for at
 * most one slot's turnover (≤ 2 × task-ms).
 *
 *   npm run fair-share-serve -w @sema-agent/bench                    # 60 tasks of 1,500 ms, 4 workers
 *   npm run fair-share-serve -w @sema-agent/bench -- --tasks 20 --task-ms 500
 *   npm run fair-share-serve -w @sema-agent/bench -- --save       # and write bench/results/fair-share-serve/…json
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeMachine, formatMachine } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "60" },
    "task-ms": { type: "string", default: "1500" },
    workers: { type: "string", default: "4" },
    save: { type: "boolean", default: false },
  },
});
const machine = describeMachine();
const TASKS = Number(values.tasks);
const TASK_MS = Number(values["task-ms"]);
const ENTRY = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "sema-bench-fair-"));
const db = join(dir, "sema.db");
const script = join(dir, "turns.json");
writeFileSync(script, JSON.stringify({ turns: [{ text: "done", delayMs: TASK_MS }] }));

/** Run `sema …` to its end; its stdout. */
function sema(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, ...args, "--db", db], {
      cwd: dir,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`sema ${args[0]}: exit ${code}`))));
  });
}

const tokenOf = async (principal: string) => (await sema(["token", "create", "--principal", principal])).trim();
const tokenA = await tokenOf("A");
const tokenB = await tokenOf("B");
const server = spawn(
  process.execPath,
  [ENTRY, "serve", "--port", "0", "--workers", values.workers, "--db", db, "--model", `script:${script}`],
  { cwd: dir, stdio: ["ignore", "pipe", "inherit"] },
);
let out = "";
server.stdout?.on("data", (chunk: Buffer) => {
  out += chunk.toString();
});
const deadline = Date.now() + 30_000;
while (!/serving http/.test(out)) {
  if (Date.now() > deadline) throw new Error(`sema serve did not start:\n${out}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const url = /serving (http:\/\/\S+)/.exec(out)?.[1] ?? "";

async function create(token: string, objective: string): Promise<string> {
  const response = await fetch(`${url}/v1/tasks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ objective }),
  });
  if (response.status !== 201) throw new Error(`POST: ${response.status}`);
  return ((await response.json()) as { taskId: string }).taskId;
}

try {
  for (let i = 0; i < TASKS; i++) await create(tokenA, `A ${i}`);
  const start = performance.now();
  const taskId = await create(tokenB, "B 0");
  let status = "";
  while (status !== "completed") {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await fetch(`${url}/v1/tasks/${taskId}`, { headers: { authorization: `Bearer ${tokenB}` } });
    status = ((await response.json()) as { status: string }).status;
  }
  const seconds = (performance.now() - start) / 1000;
  console.log(formatMachine(machine));
  console.log(
    `${TASKS} tasks of A queued, ${values.workers} workers, ${TASK_MS} ms per task: B's task completed ${seconds.toFixed(1)} s after its creation`,
  );
  saveIfAsked("fair-share-serve", machine, [
    {
      subject: `B's task, ${TASKS} of A's queued ahead of it`,
      metric: "creation → completed",
      unit: "s",
      samples: [seconds],
    },
  ]);
} finally {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}

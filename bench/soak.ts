/**
 * The serving soak: a real `sema serve` process on the embedded default (SQLite), under the load
 * the security review used to stall it, while a bystander principal goes about its business.
 *
 * - `flood` owns a finished task whose log is `--log-mb` MB (100 by default), built before the
 *   server starts; `--streams` (60) clients open its event stream and never read a byte;
 * - every second `--gets` (60) concurrent `GET /v1/tasks/{id}` of that task;
 * - `flood` starts `--tasks` (60) slow tasks (5 s model turns) on the server's 4 workers;
 * - meanwhile `bystander` polls `GET /v1/tasks?limit=1` every 100 ms (its latency is the figure)
 *   and, once the flood is queued, starts one 1.5 s task and times it to completion.
 *
 * Reported: the server's RSS (before the load and its peak), the bystander's request latency
 * (p50 / p99 / max), its task's completion time, and how many flood requests were answered.
 *
 *   npm run bench:soak
 *   npm run soak -w @sema-agent/bench -- --log-mb 20 --seconds 15
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cancel, sendInput, startTask } from "@sema-agent/core";
import { SqliteTokenStore } from "@sema-agent/server/sqlite-tokens";
import { SqliteStore } from "@sema-agent/sqlite";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    "log-mb": { type: "string", default: "100" },
    streams: { type: "string", default: "60" },
    gets: { type: "string", default: "60" },
    tasks: { type: "string", default: "60" },
    seconds: { type: "string", default: "30" },
    save: { type: "boolean", default: false },
  },
});
const LOG_MB = Number(values["log-mb"]);
const STREAMS = Number(values.streams);
const GETS = Number(values.gets);
const TASKS = Number(values.tasks);
const SECONDS = Number(values.seconds);

const SEMA_NODE = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));
const CONFIG_DIR = fileURLToPath(new URL("./soak/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sema-soak-"));
const db = join(dir, "sema.db");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** The big finished task and both principals' tokens, written before the server starts. */
async function prepare(): Promise<{ bigTask: string; flood: string; bystander: string }> {
  const store = new SqliteStore({ path: db });
  const tokens = new SqliteTokenStore({ path: db });
  try {
    const flood = (await tokens.create({ principal: "flood", actorId: "flood" })).token;
    const bystander = (await tokens.create({ principal: "bystander", actorId: "bystander" })).token;
    const bigTask = await startTask(store, { objective: "A long history", principal: "flood", agent: "soak" });
    const chunk = "x".repeat(32_000);
    const inputs = Math.ceil((LOG_MB * 1024 * 1024) / chunk.length);
    for (let i = 0; i < inputs; i++) await sendInput(store, bigTask, { text: `${i} ${chunk}` });
    await cancel(store, bigTask, { reason: "soak: finished history" });
    return { bigTask, flood, bystander };
  } finally {
    await tokens.close();
    await store.close();
  }
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) / 1024;
}

function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [SEMA_NODE, "serve", "--port", "0", "--db", db, "--workers", "4"], {
    cwd: CONFIG_DIR,
    env: { ...process.env, SEMA_STORE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`sema serve exited (${code}): ${output}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const url = /serving (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined) resolve({ child, url });
    });
  });
}

/** An event-stream request on a raw socket that is never read: the server's backpressure at work. */
function stalledStream(url: URL, path: string, token: string): Socket {
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  socket.pause();
  socket.on("error", () => undefined);
  return socket;
}

async function timedFetch(
  url: string,
  token: string,
  init: RequestInit = {},
): Promise<{ ms: number; status: number; body: string }> {
  const started = performance.now();
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(60_000),
  });
  const body = await response.text();
  return { ms: performance.now() - started, status: response.status, body };
}

const machine = describeMachine();
console.log(`Preparing a ${LOG_MB} MB log …`);
const { bigTask, flood, bystander } = await prepare();
const { child, url } = await startServer();
const pid = child.pid ?? 0;
await sleep(1000);
const rssBefore = rssMiB(pid);
let rssPeak = rssBefore;
const sampler = setInterval(() => {
  rssPeak = Math.max(rssPeak, rssMiB(pid));
}, 200);

const end = Date.now() + SECONDS * 1000;
const base = new URL(url);
const sockets = Array.from({ length: STREAMS }, () => stalledStream(base, `/v1/tasks/${bigTask}/events`, flood));

let floodAnswered = 0;
let floodRefused = 0;
const getFlood = (async () => {
  while (Date.now() < end) {
    const round = await Promise.all(
      Array.from({ length: GETS }, () => timedFetch(`${url}/v1/tasks/${bigTask}`, flood).catch(() => undefined)),
    );
    for (const r of round)
      if (r?.status === 200) floodAnswered++;
      else floodRefused++;
    await sleep(1000);
  }
})();

const taskFlood = Promise.all(
  Array.from({ length: TASKS }, (_, i) =>
    timedFetch(`${url}/v1/tasks`, flood, { method: "POST", body: JSON.stringify({ objective: `slow ${i}` }) }),
  ),
);

const latencies: number[] = [];
const loadStarted = performance.now();
let slowestAt = 0;
const probe = (async () => {
  while (Date.now() < end) {
    const sent = performance.now();
    const r = await timedFetch(`${url}/v1/tasks?limit=1`, bystander);
    if (r.status === 200) {
      if (r.ms > Math.max(0, ...latencies)) slowestAt = (sent - loadStarted) / 1000;
      latencies.push(r.ms);
    }
    await sleep(100);
  }
})();

await taskFlood;
const created = await timedFetch(`${url}/v1/tasks`, bystander, {
  method: "POST",
  body: JSON.stringify({ objective: "quick" }),
});
const quickStarted = performance.now();
const quickId = (JSON.parse(created.body) as { taskId: string }).taskId;
let quickMs = Number.NaN;
while (Date.now() < end + 60_000) {
  const r = await timedFetch(`${url}/v1/tasks/${quickId}`, bystander);
  if (r.status === 200 && (JSON.parse(r.body) as { status: string }).status === "completed") {
    quickMs = performance.now() - quickStarted;
    break;
  }
  await sleep(100);
}
await Promise.all([probe, getFlood]);
clearInterval(sampler);
for (const socket of sockets) socket.destroy();
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
rmSync(dir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
const row = (metric: string, unit: string, value: number, target?: ResultRow["target"]): ResultRow => ({
  subject: "sema serve (SQLite)",
  metric,
  unit,
  samples: [value],
  ...(target === undefined ? {} : { target }),
});
const rows: ResultRow[] = [
  row("RSS before the load", "MiB", rssBefore),
  row("RSS growth under the load", "MiB", rssPeak - rssBefore, { value: 300, higher: false }),
  row("bystander GET p50", "ms", percentile(latencies, 50)),
  row("bystander GET p99", "ms", percentile(latencies, 99), { value: 1000, higher: false }),
  row("bystander GET max", "ms", latencies.at(-1) ?? Number.NaN),
  row("… sent this long after the load began", "s", slowestAt),
  row("bystander 1.5 s task, created → completed", "s", quickMs / 1000),
  row("flood GETs of the big task answered", "requests", floodAnswered),
  row("flood GETs refused or failed", "requests", floodRefused),
];
console.log(formatMachine(machine));
console.log(
  `\n${LOG_MB} MB log, ${STREAMS} non-reading streams, ${GETS} GETs/s, ${TASKS} slow tasks on 4 workers, ${SECONDS} s\n`,
);
console.log(formatTable(rows));
saveIfAsked("soak", machine, rows);

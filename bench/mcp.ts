/**
 * The MCP benchmark: the round trip of `run_<agent>` — the official SDK client calls the tool, the
 * server starts a task, a worker runs it on an instant scripted model, the wait sees it complete
 * in the log, the answer comes back — over stdio (`sema mcp`, a child process) and over Streamable
 * HTTP (`serve`'s `/mcp`, what `sema serve` runs, in a child process with the rate limit lifted),
 * each on its own SQLite file. Beside it, a
 * `tools/list` round trip on the same connection: the protocol's own cost, without a task. Calls
 * are sequential (one client, one call at a time), so the figures are latencies; p50 / p90 / p99
 * per round, the median and the spread of the rounds.
 *
 *   npm run bench:mcp                                   # 200 calls per round, 5 rounds, both transports
 *   npm run bench:mcp -- --calls 100 --rounds 3 --transport stdio
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
// Only the SDK and the table helpers: the source condition would pick eventsource-parser's
// TypeScript too, so this process runs without it (the sema children resolve their own sources).
import { describeMachine, formatMachine } from "./lib/machine.ts";
import { saveIfAsked } from "./lib/results.ts";
import { formatTable, type ResultRow } from "./lib/table.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "200" },
    rounds: { type: "string", default: "5" },
    warmup: { type: "string", default: "20" },
    transport: { type: "string", default: "both" },
    save: { type: "boolean", default: false },
  },
});
const CALLS = Number(values.calls);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const TRANSPORTS = values.transport === "both" ? ["stdio", "http"] : [values.transport ?? "stdio"];

/** `sema` on the TypeScript sources, as the CLI's own process tests run it. */
const SEMA = fileURLToPath(new URL("../packages/cli/src/test-support/sema-node.ts", import.meta.url));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A fresh directory with an instant one-turn script (every task plays it from its first turn). */
function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sema-bench-mcp-"));
  writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "done" }] }));
  return dir;
}

const ENV = { ...(process.env as Record<string, string>), SEMA_STORE_URL: "", SEMA_DB: "", SEMA_TOKEN: "" };

async function stdioClient(dir: string): Promise<{ client: Client; stop: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SEMA, "mcp", "--model", `script:${join(dir, "turns.json")}`],
    cwd: dir,
    env: ENV,
    stderr: "ignore",
  });
  const client = new Client({ name: "sema-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, stop: () => client.close() };
}

const HOOKS = fileURLToPath(new URL("./lib/source-hooks.ts", import.meta.url));
const HTTP_CHILD = fileURLToPath(new URL("./lib/mcp-http-child.ts", import.meta.url));

async function httpClient(dir: string): Promise<{ client: Client; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ["--import", HOOKS, HTTP_CHILD, dir], {
    env: ENV,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("\n")) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [url = "", token = ""] = output.trim().split(" ");
  const client = new Client({ name: "sema-bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    client,
    async stop() {
      await client.close();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Milliseconds of each of `n` sequential calls of `call`. */
async function latencies(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    out.push(performance.now() - start);
  }
  return out.sort((a, b) => a - b);
}

async function run(client: Client): Promise<void> {
  const result = (await client.callTool({
    name: "run_default",
    arguments: { objective: "Say done" },
  })) as CallToolResult;
  const [first] = result.content;
  if (result.isError === true || first?.type !== "text" || first.text !== "done")
    throw new Error(`run_default: ${JSON.stringify(result)}`);
}

const machine = describeMachine();
const rows: ResultRow[] = [];
for (const transport of TRANSPORTS) {
  const samples = {
    runP50: [] as number[],
    runP90: [] as number[],
    runP99: [] as number[],
    list: [] as number[],
    rate: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    const dir = workdir();
    const { client, stop } = transport === "http" ? await httpClient(dir) : await stdioClient(dir);
    try {
      await latencies(WARMUP, () => run(client));
      const list = await latencies(CALLS, () => client.listTools());
      const start = performance.now();
      const runs = await latencies(CALLS, () => run(client));
      samples.rate.push(CALLS / ((performance.now() - start) / 1000));
      samples.runP50.push(percentile(runs, 50));
      samples.runP90.push(percentile(runs, 90));
      samples.runP99.push(percentile(runs, 99));
      samples.list.push(percentile(list, 50));
    } finally {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const subject = transport === "http" ? "Streamable HTTP (/mcp of serve)" : "stdio (sema mcp)";
  rows.push(
    { subject, metric: "run_default round trip p50", unit: "ms", samples: samples.runP50 },
    { subject, metric: "run_default round trip p90", unit: "ms", samples: samples.runP90 },
    { subject, metric: "run_default round trip p99", unit: "ms", samples: samples.runP99 },
    { subject, metric: "run_default calls, one at a time", unit: "calls/s", samples: samples.rate },
    { subject, metric: "tools/list round trip p50", unit: "ms", samples: samples.list },
  );
}

console.log(formatMachine(machine));
console.log(
  `${CALLS} calls per round (after ${WARMUP} unmeasured), ${ROUNDS} rounds, SQLite file, instant scripted model\n`,
);
console.log(formatTable(rows));
saveIfAsked("mcp", machine, rows);

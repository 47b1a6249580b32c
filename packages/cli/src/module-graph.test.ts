/**
 * What a command loads, in a real process: `sema worker` serves no HTTP, so nothing of Hono (nor
 * of `@sema-agent/server`) may be in its module graph; a PostgreSQL node never loads node:sqlite;
 * `sema serve` loads nothing of OpenTelemetry until someone asks it for a task's trace.
 * Each command runs until it is up, then gets SIGTERM; the child records every module it resolved
 * (test-support/module-graph-node.ts). The controls (`sema serve` loads Hono, SQLite loads
 * node:sqlite, `sema serve --metrics` loads the metrics SDK) prove the recording sees what the
 * other checks look for. Without metrics asked for, nothing of OpenTelemetry is loaded.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_URL, skip, withClient } from "../../postgres/src/test-server.fixture.ts";

const ENTRY = fileURLToPath(new URL("./test-support/module-graph-node.ts", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
/**
 * Run `sema <args>` until its output matches `ready`, then `then(output)` if given, and stop it
 * with SIGTERM, or (`"exit"`) until it exits by itself; the modules it loaded. `env` is added to
 * the child's environment.
 */
async function modulesOf(
  args: string[],
  ready: RegExp | "exit",
  then?: (output: string) => Promise<void>,
  env: Record<string, string> = {},
): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "sema-graph-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "turns.json"),
    JSON.stringify({ turns: [{ toolCalls: [{ name: "list_dir", input: { path: "." } }] }, { text: "done" }] }),
  );
  const log = join(dir, "modules.txt");
  const child: ChildProcess = spawn(process.execPath, [ENTRY, ...args, "--model", "script:turns.json"], {
    cwd: dir,
    // No OTEL_* variable of this shell: with an exporter set up, a host loads the SDK on purpose.
    env: { ...withoutOtel(process.env), SEMA_STORE_URL: "", SEMA_DB: "", SEMA_MODULE_LOG: log, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  if (ready !== "exit") {
    try {
      await expect.poll(() => output, { timeout: 30_000, interval: 50 }).toMatch(ready);
      await then?.(output);
    } finally {
      child.kill("SIGTERM");
    }
  }
  expect(await exited, output).toBe(0);
  return readFileSync(log, "utf8").split("\n");
}

/** The environment without any OTEL_* variable, so "unset" means unset whatever the test runner has. */
function withoutOtel(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("OTEL_")));
}

const HONO = /\/node_modules\/(hono|@hono\/[^/]+)\//;
const OTEL_SDK = /\/node_modules\/@opentelemetry\//;
const SERVER = /\/packages\/server\/|\/node_modules\/@sema-agent\/server\//;
const OTEL = /\/packages\/otel\/|\/node_modules\/@sema-agent\/otel\/|\/node_modules\/@opentelemetry\//;

describe("what a command loads", () => {
  it("sema worker loads no Hono and nothing of the server; sema serve does (the control) but nothing of OpenTelemetry", {
    timeout: 90_000,
  }, async () => {
    const worker = await modulesOf(["worker"], /Sema worker running/);
    expect(worker.filter((url) => HONO.test(url) || SERVER.test(url))).toEqual([]);
    expect(worker.some((url) => url.includes("/packages/worker/src/worker-pool.ts"))).toBe(true);
    // The embedded default: a SQLite store, so node:sqlite is there (the control for the test below).
    expect(worker).toContain("node:sqlite");

    const serve = await modulesOf(["serve", "--port", "0"], /serving http/);
    expect(serve.some((url) => HONO.test(url))).toBe(true);
    expect(serve.filter((url) => OTEL.test(url))).toEqual([]);
  });

  it("sema serve loads @sema-agent/otel and the SDK's OTLP serializer once a trace is asked for (the control)", {
    timeout: 60_000,
  }, async () => {
    const traced = await modulesOf(["serve", "--port", "0", "--workers", "0"], /Bearer <token>/, async (output) => {
      const url = /serving (http:\/\/\S+)/.exec(output)?.[1] ?? "";
      const token = /\n\n {2}(\S+)\n\n/.exec(output)?.[1] ?? "";
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const created = await fetch(`${url}/v1/tasks`, { method: "POST", headers, body: '{"objective":"Trace me"}' });
      const { taskId } = (await created.json()) as { taskId: string };
      const trace = await fetch(`${url}/v1/tasks/${taskId}/trace`, { headers });
      expect(trace.status).toBe(200);
      expect(await trace.text()).toContain('"resourceSpans"');
    });
    expect(traced.some((url) => url.includes("/packages/otel/src/trace/trace-task-json.ts"))).toBe(true);
    expect(traced.some((url) => url.includes("/node_modules/@opentelemetry/otlp-transformer/"))).toBe(true);
  });

  it("without metrics asked for, sema worker and sema serve load nothing of OpenTelemetry; --metrics does (the control)", {
    timeout: 90_000,
  }, async () => {
    const worker = await modulesOf(["worker"], /Sema worker running/);
    expect(worker.filter((url) => OTEL_SDK.test(url))).toEqual([]);
    const serve = await modulesOf(["serve", "--port", "0"], /serving http/);
    expect(serve.filter((url) => OTEL_SDK.test(url))).toEqual([]);
    // Not even Sema's own OpenTelemetry package: the host imports it only when metrics may be wanted.
    expect(
      [...worker, ...serve].filter((url) => /\/packages\/otel\/|\/node_modules\/@sema-agent\/otel\//.test(url)),
    ).toEqual([]);
    const metered = await modulesOf(["serve", "--port", "0", "--metrics"], /serving http/);
    expect(metered.some((url) => url.includes("/node_modules/@opentelemetry/sdk-metrics/"))).toBe(true);
    expect(metered.some((url) => url.includes("/node_modules/@opentelemetry/exporter-prometheus/"))).toBe(true);
  });

  it("with no OTEL_* variable set, sema worker, serve and run load no OpenTelemetry module; with an endpoint, run loads the exporter (the control)", {
    timeout: 120_000,
  }, async () => {
    const worker = await modulesOf(["worker"], /Sema worker running/);
    const serve = await modulesOf(["serve", "--port", "0"], /serving http/);
    const run = await modulesOf(["run", "list the files", "--yes"], "exit");
    for (const loaded of [worker, serve, run]) expect(loaded.filter((url) => OTEL.test(url))).toEqual([]);
    // The run did run its tool: it was not a run that stopped early.
    expect(run.some((url) => url.includes("/packages/cli/src/tools/list-dir.ts"))).toBe(true);

    // Nothing listens there; the run still ends, and exits, within its bound.
    const traced = await modulesOf(["run", "list the files", "--yes"], "exit", undefined, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
    });
    expect(traced.some((url) => /\/node_modules\/@opentelemetry\/exporter-trace-otlp-proto\//.test(url))).toBe(true);
    expect(traced.some((url) => /exporter-trace-otlp-http/.test(url))).toBe(false);
  });

  it("sema serve --protocols none loads none of the A2A, MCP or AG-UI SDKs; by default it loads all three (the control)", {
    timeout: 90_000,
  }, async () => {
    const sdks = [
      /\/node_modules\/@a2a-js\/sdk\//,
      /\/node_modules\/@modelcontextprotocol\/sdk\//,
      /\/node_modules\/@ag-ui\//,
    ];
    const bare = await modulesOf(["serve", "--port", "0", "--protocols", "none"], /Protocols beside \/v1: none/);
    for (const sdk of sdks) expect(bare.filter((url) => sdk.test(url))).toEqual([]);
    expect(bare.some((url) => HONO.test(url))).toBe(true);
    const all = await modulesOf(["serve", "--port", "0"], /Protocols beside \/v1: a2a, mcp, ag-ui, ui-stream, console/);
    for (const sdk of sdks) expect(all.some((url) => sdk.test(url))).toBe(true);
  });

  describe.skipIf(skip)("on PostgreSQL", () => {
    const database = `sema_graph_${randomBytes(5).toString("hex")}`;
    const url = (() => {
      const parsed = new URL(POSTGRES_URL);
      parsed.pathname = `/${database}`;
      return parsed.toString();
    })();
    afterAll(async () => {
      await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    });

    it("sema serve loads no node:sqlite (and its tokens live in PostgreSQL)", { timeout: 60_000 }, async () => {
      await withClient((client) => client.query(`CREATE DATABASE ${database}`));
      const serve = await modulesOf(["serve", "--port", "0", "--workers", "0", "--store", url], /serving http/);
      expect(serve).not.toContain("node:sqlite");
      expect(serve.some((u) => u.includes("/packages/server/src/ingress/postgres-token-store.ts"))).toBe(true);
      expect(serve.some((u) => HONO.test(u))).toBe(true);
    });
  });
});

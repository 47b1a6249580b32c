/**
 * What a command loads, in a real process: `sema worker` serves no HTTP, so nothing of Hono (nor
 * of `@sema-agent/server`) may be in its module graph; a PostgreSQL node never loads node:sqlite.
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

/** Run `sema <args>` until its output matches `ready`, stop it with SIGTERM; the modules it loaded. */
async function modulesOf(args: string[], ready: RegExp): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "sema-graph-"));
  dirs.push(dir);
  writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "done" }] }));
  const log = join(dir, "modules.txt");
  const child: ChildProcess = spawn(process.execPath, [ENTRY, ...args, "--model", "script:turns.json"], {
    cwd: dir,
    env: { ...process.env, ...NO_OTEL, SEMA_STORE_URL: "", SEMA_DB: "", SEMA_MODULE_LOG: log },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await expect.poll(() => output, { timeout: 30_000, interval: 50 }).toMatch(ready);
  } finally {
    child.kill("SIGTERM");
  }
  expect(await exited, output).toBe(0);
  return readFileSync(log, "utf8").split("\n");
}

const HONO = /\/node_modules\/(hono|@hono\/[^/]+)\//;
const OTEL_SDK = /\/node_modules\/@opentelemetry\//;
/** The OpenTelemetry variables cleared, whatever the test's own environment has. */
const NO_OTEL = {
  OTEL_EXPORTER_OTLP_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "",
  OTEL_METRICS_EXPORTER: "",
};
const SERVER = /\/packages\/server\/|\/node_modules\/@sema-agent\/server\//;

describe("what a command loads", () => {
  it("sema worker loads no Hono and nothing of the server; sema serve does (the control)", {
    timeout: 90_000,
  }, async () => {
    const worker = await modulesOf(["worker"], /Sema worker running/);
    expect(worker.filter((url) => HONO.test(url) || SERVER.test(url))).toEqual([]);
    expect(worker.some((url) => url.includes("/packages/worker/src/worker-pool.ts"))).toBe(true);
    // The embedded default: a SQLite store, so node:sqlite is there (the control for the test below).
    expect(worker).toContain("node:sqlite");

    const serve = await modulesOf(["serve", "--port", "0"], /serving http/);
    expect(serve.some((url) => HONO.test(url))).toBe(true);
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

/**
 * Quotas per principal on many nodes sharing one PostgreSQL database, as separate processes: 2 API
 * nodes (`sema serve --workers 0`) and 2 workers (`sema worker`), all loading the same quotas.
 * A burst of creations spread over both API nodes takes exactly the principal's concurrentTasks
 * (the rest are 429); tasks that together would spend past a token quota park `parked:quota`,
 * and the store's counters, read by either API node, equal the usage the logs record.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { fold } from "@sema-agent/core";
import { PostgresStore } from "@sema-agent/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_URL, skip, withClient } from "../../postgres/src/test-server.fixture.ts";
import type { CliIo } from "./context.ts";
import { main } from "./main.ts";

const NODE_ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));
const CONFIG_DIR = fileURLToPath(new URL("./test-support/many-nodes-quotas/", import.meta.url));

interface Node {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(skip)("quotas across nodes on one PostgreSQL", () => {
  const database = `sema_quota_${randomBytes(5).toString("hex")}`;
  const url = (() => {
    const parsed = new URL(POSTGRES_URL);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  const nodes: Node[] = [];

  function start(name: string, args: string[]): Node {
    const child = spawn(process.execPath, [NODE_ENTRY, ...args, "--store", url], {
      cwd: CONFIG_DIR,
      env: { ...process.env, SEMA_STORE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const node = { name, child, output: () => output, exited };
    nodes.push(node);
    return node;
  }

  async function cli(args: string[]): Promise<string> {
    let out = "";
    const io: CliIo = {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: () => true },
      env: {},
      cwd: CONFIG_DIR,
    };
    expect(await main([...args, "--store", url], io)).toBe(0);
    return out;
  }

  afterAll(async () => {
    for (const node of nodes) node.child.kill("SIGKILL");
    await Promise.all(nodes.map((node) => node.exited));
    await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it("two API nodes and two workers hold one principal's quotas together", { timeout: 180_000 }, async () => {
    await withClient((client) => client.query(`CREATE DATABASE ${database}`));
    const crowd = (await cli(["token", "create", "--principal", "crowd"])).trim();
    const metered = (await cli(["token", "create", "--principal", "metered"])).trim();
    const api = ["api-1", "api-2"].map((name) => start(name, ["serve", "--port", "0", "--workers", "0"]));
    const workers = ["worker-1", "worker-2"].map((name) =>
      start(name, ["worker", "--concurrency", "8", "--poll", "50"]),
    );
    const urls = await Promise.all(
      api.map((node) =>
        until(`${node.name} to listen`, () => /serving (http:\/\/\S+)/.exec(node.output())?.[1], 30_000),
      ),
    );
    await Promise.all(
      workers.map((node) =>
        until(`${node.name} to start`, () => (/worker running/.test(node.output()) ? true : undefined), 30_000),
      ),
    );
    const create = (i: number, token: string, body: Record<string, unknown>) =>
      fetch(`${urls[i % 2]}/v1/tasks`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    // concurrentTasks 3: ten creations at once, alternating between the API nodes, take 3 slots.
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(i, crowd, { objective: `linger ${i}`, agent: "slow" })),
    );
    const statuses = burst.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429, 429, 429]);
    const refused = burst.find((response) => response.status === 429);
    expect(await refused?.json()).toMatchObject({
      error: { code: "QuotaExceeded", details: { quota: "concurrentTasks", limit: 3 } },
    });

    // tokensPerDay 30,000: eight tasks of two 5,000-token turns would spend 80,000.
    const taskIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const response = await create(i, metered, { objective: `spend ${i}` });
      expect(response.status).toBe(201);
      taskIds.push(((await response.json()) as { taskId: string }).taskId);
    }
    const store = await PostgresStore.open({ connectionString: url });
    try {
      const logs = await until(
        "every spending task to complete or park at the quota",
        async () => {
          const all = await Promise.all(taskIds.map((id) => store.read(id)));
          const settled = all.every((events) => {
            const { status, parkedReason } = fold(events).summary;
            return status === "completed" || (status === "parked" && parkedReason === "quota");
          });
          return settled ? all : undefined;
        },
        120_000,
      );
      const summaries = logs.map((events) => fold(events).summary);
      const parked = summaries.filter((s) => s.status === "parked");
      expect(parked.length).toBeGreaterThan(0);
      for (const s of parked) expect(s.parkedDetail).toBe("tokensPerDay");
      // What the logs recorded is exactly what the counters hold: counted in the appends' transactions.
      const recorded = logs
        .flat()
        .reduce((sum, e) => (e.type === "model_turn" ? sum + e.usage.inputTokens + e.usage.outputTokens : sum), 0);
      const counted = await store.usage({ principal: "metered", sinceMs: Date.now() - 25 * 3_600_000 });
      expect(counted.buckets.reduce((sum, b) => sum + b.inputTokens + b.outputTokens, 0)).toBe(recorded);
      // The quota holds up to the bound: every call fitted when it was asked, so at most one call
      // per task in flight at the crossing (16 legs at once here) goes past it.
      expect(recorded).toBeLessThanOrEqual(30_000 + 16 * 5_000);
      expect(recorded).toBeGreaterThanOrEqual(25_000);
      // Both API nodes read the same usage for the principal, and only its own.
      const reads = await Promise.all(
        urls.map(async (base) =>
          (await fetch(`${base}/v1/usage`, { headers: { authorization: `Bearer ${metered}` } })).json(),
        ),
      );
      for (const read of reads)
        expect(read).toMatchObject({
          principal: "metered",
          day: { tokens: recorded },
          quotas: { tokensPerDay: 30_000 },
        });
      // A parked task waits for the window's edge: a silent timer within the next 24 hours.
      const timers = Object.values(parked[0]?.timers ?? {});
      expect(timers).toHaveLength(1);
      expect(timers[0]).toBeGreaterThan(Date.now());
      expect(timers[0]).toBeLessThanOrEqual(Date.now() + 24 * 3_600_000);
    } finally {
      await store.close();
    }
  });
});

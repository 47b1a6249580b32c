/**
 * Quotas per principal on many nodes sharing one PostgreSQL database, as separate processes: 2 API
 * nodes (`sema serve --workers 0`) and 2 workers (`sema worker`), all loading the same quotas.
 * A burst of creations spread over both API nodes takes exactly the principal's concurrentTasks
 * (the rest are 429); tasks that together would spend past a token quota park `parked:quota`,
 * and the store's counters, read by either API node, equal the usage the logs record.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { fold } from "@sema-agent/core";
import { PostgresStore } from "@sema-agent/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_URL, skip, withClient } from "../../postgres/src/test-server.fixture.ts";
import { nodeCluster, until } from "./test-support/node-cluster.ts";

const CONFIG_DIR = fileURLToPath(new URL("./test-support/many-nodes-quotas/", import.meta.url));

describe.skipIf(skip)("quotas across nodes on one PostgreSQL", () => {
  const database = `sema_quota_${randomBytes(5).toString("hex")}`;
  const url = (() => {
    const parsed = new URL(POSTGRES_URL);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  const cluster = nodeCluster({ url, configDir: CONFIG_DIR });
  const { start, cli } = cluster;

  afterAll(async () => {
    await cluster.stop();
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
      // From an hour before the first stored event (buckets are whole hours): the log's clock, not this process's.
      const firstAt = Math.min(...logs.map((events) => Date.parse(events[0]?.at ?? "")));
      const counted = await store.usage({ principal: "metered", sinceMs: firstAt - 3_600_000 });
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
      // Measured from the stored time of the event that parked it.
      const parkedLog = logs.find((events) => fold(events).summary.status === "parked") ?? [];
      const parkedAt = Date.parse(parkedLog.at(-1)?.at ?? "");
      const timers = Object.values(fold(parkedLog).summary.timers ?? {});
      expect(timers).toHaveLength(1);
      expect(timers[0]).toBeGreaterThan(parkedAt);
      expect(timers[0]).toBeLessThanOrEqual(parkedAt + 24 * 3_600_000);
    } finally {
      await store.close();
    }
  });
});

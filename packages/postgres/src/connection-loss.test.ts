/**
 * A leg on PostgreSQL whose connections are lost while it works: killed by the server (what a
 * restarted pooler does) or cut off with new ones refused for a while (a failover as clients see
 * it). The store reports `StoreUnavailable`, the harness retries with backoff, the pool
 * reconnects, and the task finishes with every tool run once and a gapless log.
 */
import { fold, runLeg, startTask, type Tool } from "@sema-agent/core";
import { noteTool, noteTurns, ScriptedModel } from "@sema-agent/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.ts";
import { startTcpProxy } from "./tcp-proxy.fixture.ts";
import { dropSchema, freshSchema, POSTGRES_URL, skip, withClient } from "./test-server.fixture.ts";

/**
 * Run a task that takes one note per text on `store` and check it ended well: completed, each
 * note run once, a gapless log with one result per call. Returns how often the leg retried.
 */
async function takeNotes(
  store: PostgresStore,
  note: Tool,
  runs: Record<string, number>,
  texts: string[],
): Promise<{ retries: number }> {
  const taskId = await startTask(store, { objective: "Take notes" });
  let retries = 0;
  const outcome = await runLeg(
    {
      store,
      agent: { model: new ScriptedModel(noteTurns(texts)), tools: [note] },
      emit: (event) => {
        if (event.type === "store_retry") retries++;
      },
    },
    taskId,
  );
  expect(outcome.status).toBe("completed");
  expect(runs).toEqual(Object.fromEntries(texts.map((text) => [text, 1])));
  const events = await store.read(taskId);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(fold(events).summary.status).toBe("completed");
  expect(events.filter((e) => e.type === "tool_result")).toHaveLength(texts.length);
  return { retries };
}

describe.skipIf(skip)("PostgresStore when the server drops its connections", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("lets a running leg ride out terminated connections", async () => {
    const schema = freshSchema();
    const app = `sema_drop_${schema.slice(-6)}`;
    cleanup.push(() => dropSchema(schema));
    const url = new URL(POSTGRES_URL);
    url.searchParams.set("application_name", app);
    const store = await PostgresStore.open({ connectionString: url.toString(), schema });
    cleanup.push(() => store.close());

    const killed: number[] = [];
    const { note, runs } = noteTool(async () => {
      // Every connection the store holds is terminated by the server, mid-leg.
      const rows = await withClient(async (client) => {
        const result = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pg_terminate_backend(pid)",
          [app],
        );
        return result.rows;
      });
      killed.push(rows.length);
    });
    // The pool drops a terminated idle connection quietly, so this may need no retry at all.
    await takeNotes(store, note, runs, ["a", "b", "c", "d"]);
    expect(killed.every((n) => n > 0)).toBe(true);
  });

  it("retries through an outage that refuses connections, and finishes the task", async () => {
    const schema = freshSchema();
    cleanup.push(() => dropSchema(schema));
    const server = new URL(POSTGRES_URL);
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    cleanup.push(() => proxy.close());
    const url = new URL(POSTGRES_URL);
    url.port = String(proxy.port);
    const store = await PostgresStore.open({ connectionString: url.toString(), schema });
    cleanup.push(() => store.close());

    // The database is unreachable for 400 ms, starting as each note's result is written.
    const { note, runs } = noteTool(() => proxy.cut(400));
    const { retries } = await takeNotes(store, note, runs, ["a", "b", "c"]);
    expect(retries).toBeGreaterThanOrEqual(3);
  });
});

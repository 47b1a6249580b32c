/**
 * Many nodes on one PostgreSQL database (design §7 "Scale-out"), as separate processes: 2 API
 * nodes (`sema serve --workers 0`) and 3 workers (`sema worker`). 200 tasks are started through
 * random API nodes, steers are posted to random API nodes while they run, one worker is killed
 * with SIGKILL mid-run and another started. Every task completes, every steer is applied exactly
 * once with its sender's attribution, no non-idempotent tool runs twice, every log is gapless.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fold, type StoredEvent } from "@sema-agent/core";
import { PostgresStore } from "@sema-agent/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_URL, skip, withClient } from "../../postgres/src/test-server.fixture.ts";
import { type ClusterNode, nodeCluster, sleep, until } from "./test-support/node-cluster.ts";

const CONFIG_DIR = fileURLToPath(new URL("./test-support/many-nodes/", import.meta.url));
const TASKS = 200;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

describe.skipIf(skip)("many nodes on one PostgreSQL", () => {
  const database = `sema_many_${randomBytes(5).toString("hex")}`;
  const url = (() => {
    const parsed = new URL(POSTGRES_URL);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  const runsFile = join(mkdtempSync(join(tmpdir(), "sema-many-")), "runs.txt");
  const cluster = nodeCluster({ url, configDir: CONFIG_DIR, env: { SEMA_TEST_RUNS_FILE: runsFile } });
  const { start, cli } = cluster;

  /** How many tasks a process holds a live lease on right now. */
  async function liveLeasesOf(pid: number | undefined): Promise<number> {
    const { rows } = await withClient(
      (client) =>
        client.query<{ n: string }>(
          `SELECT count(*) AS n FROM sema.tasks
            WHERE lease_expires_at > clock_timestamp() AND (lease_holder::json ->> 'pid')::int = $1`,
          [pid],
        ),
      url,
    );
    return Number(rows[0]?.n ?? 0);
  }

  afterAll(async () => {
    await cluster.stop();
    await withClient((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  });

  it("runs 200 tasks across 2 API nodes and 3 workers, surviving a worker's SIGKILL", {
    timeout: 240_000,
  }, async () => {
    await withClient((client) => client.query(`CREATE DATABASE ${database}`));
    writeFileSync(runsFile, "");
    // Two speakers, each with a token minted once for the whole deployment.
    const tokens = {
      alice: (await cli(["token", "create", "--principal", "acme", "--actor", "alice"])).trim(),
      bob: (await cli(["token", "create", "--principal", "acme", "--actor", "bob"])).trim(),
    };

    const api = ["api-1", "api-2"].map((name) => start(name, ["serve", "--port", "0", "--workers", "0"]));
    const workerArgs = ["worker", "--concurrency", "8", "--poll", "100", "--lease-ttl", "2000"];
    const workers = ["worker-1", "worker-2", "worker-3"].map((name) => start(name, workerArgs));
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

    const post = async (path: string, speaker: keyof typeof tokens, body: unknown) => {
      // 300 requests of one principal in a few seconds pass each node's rate limit (a burst of 120,
      // then 10 a second) on a fast machine and not on a slow one: a client waits as told and
      // sends again, so the test does not depend on the machine's speed.
      for (let attempt = 0; ; attempt++) {
        const response = await fetch(`${pick(urls)}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${tokens[speaker]}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        if (response.status === 429 && attempt < 30) {
          await sleep(Number(response.headers.get("retry-after") ?? "1") * 1000);
          continue;
        }
        expect(response.status, await response.clone().text()).toBeLessThan(300);
        return (await response.json()) as Record<string, string>;
      }
    };

    // Every other task is told to expect a steer, and keeps working until one reaches it.
    const steers = new Map<string, { taskId: string; speaker: keyof typeof tokens }>();
    const taskIds: string[] = [];
    const steering: Promise<void>[] = [];
    let watched: Promise<string> | undefined;
    let killing: Promise<void> | undefined;
    for (let i = 0; i < TASKS; i++) {
      const steered = i % 2 === 0;
      const { taskId } = await post("/v1/tasks", pick(["alice", "bob"] as const), {
        objective: steered ? `Task ${i}: expect a steer` : `Task ${i}`,
      });
      taskIds.push(taskId ?? "");
      // One task is watched live through an API node while workers elsewhere run it.
      watched ??= fetch(`${urls[0]}/v1/tasks/${taskId}/events`, {
        headers: { authorization: `Bearer ${tokens.alice}` },
      }).then((response) => response.text());
      if (!steered) continue;
      const speaker = pick(["alice", "bob"] as const);
      steering.push(
        (async () => {
          await sleep(Math.random() * 300);
          const sent = await post(`/v1/tasks/${taskId}/inputs`, speaker, { text: `steer-${i}` });
          steers.set(sent.inputId ?? "", { taskId: taskId ?? "", speaker });
        })(),
      );
      // Mid-run, one worker dies without a chance to clean up, and another takes its place. It
      // is killed while it holds a live lease (not merely after it once ran a tool: its legs may
      // all have ended by then, leaving nothing to recover), watched while tasks keep coming.
      if (i === TASKS / 2) {
        const victim = workers[0] as ClusterNode;
        killing = (async () => {
          await until(
            "the victim to hold a leg",
            async () => ((await liveLeasesOf(victim.child.pid)) > 0 ? true : undefined),
            60_000,
          );
          victim.child.kill("SIGKILL");
          await victim.exited;
          start("worker-4", workerArgs);
        })();
      }
    }
    await killing;
    await Promise.all(steering);

    const store = await PostgresStore.open({ connectionString: url });
    try {
      const logs = await until(
        "every task to complete",
        async () => {
          const all = await Promise.all(taskIds.map((id) => store.read(id)));
          return all.every((events) => fold(events).summary.status === "completed") ? all : undefined;
        },
        180_000,
      );
      // Gapless logs, each ending completed.
      for (const events of logs) expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

      // Every steer applied exactly once, to its task, with its sender's verified attribution.
      const applied = logs
        .flat()
        .filter(
          (e): e is Extract<StoredEvent, { type: "human_input" }> =>
            e.type === "human_input" && e.delivery === "applied",
        );
      expect(steers.size).toBe(TASKS / 2);
      for (const [inputId, { taskId, speaker }] of steers) {
        const hits = applied.filter((e) => e.inputId === inputId);
        expect(hits, `steer ${inputId}`).toHaveLength(1);
        expect(hits[0]?.taskId).toBe(taskId);
        expect(hits[0]?.actor).toMatchObject({ id: speaker, verified: true });
      }

      // The non-idempotent tool ran at most once per call; every call has exactly one result.
      const runs = readFileSync(runsFile, "utf8").trim().split("\n");
      const byCall = new Map<string, number>();
      for (const line of runs) {
        const [taskId, callId] = line.split(" ");
        byCall.set(`${taskId} ${callId}`, (byCall.get(`${taskId} ${callId}`) ?? 0) + 1);
      }
      expect([...byCall.entries()].filter(([, n]) => n > 1)).toEqual([]);
      for (const events of logs) {
        const calls = events.flatMap((e) => (e.type === "tool_call_started" ? [e.callId] : []));
        const results = events.flatMap((e) => (e.type === "tool_result" ? [e.callId] : []));
        expect(results.sort()).toEqual([...new Set(calls)].sort());
      }
      // Deltas are node-local: a subscriber on an API node gets every stored event of a leg run
      // on another node, gapless and in order until the task ends, and no deltas.
      const stream = await (watched ?? Promise.resolve(""));
      const ids = [...stream.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(logs[0]?.map((e) => e.seq));
      expect(stream).toMatch(/^event: task_completed$/m);
      expect(stream).not.toMatch(/^event: (text_delta|tool_input_delta)$/m);

      // The killed worker really was running legs that others then recovered.
      const recovered = logs.flat().filter((e) => e.type === "leg_started" && e.trigger === "recover");
      expect(recovered.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

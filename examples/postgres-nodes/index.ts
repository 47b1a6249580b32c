// Many nodes on one PostgreSQL database: two worker processes (this file run again with the role
// "worker") claim runnable tasks from the same store; each task runs once, on one of them, and the
// tasks are shared between them. Needs a server: SEMA_POSTGRES_URL, default
// postgres://postgres@127.0.0.1:5432/test. Without one it says so and exits 0.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createAgent, isTerminal, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { PostgresStore } from "@sema-agent/postgres";
import { createAgentRegistry, startWorkers } from "@sema-agent/worker";
import pg from "pg";

const url = process.env.SEMA_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const [role = "main", schema = "", name = ""] = process.argv.slice(2);

if (role === "worker") {
  const store = new PostgresStore({ connectionString: url, schema });
  // Each leg takes a moment, so neither worker can take every task before the other claims one.
  const model = new ScriptedModel([() => ({ text: `done by ${name}`, delayMs: 150 })], { mode: "by-transcript" });
  const pool = startWorkers({ store, agents: createAgentRegistry({ echo: { model } }), concurrency: 1, pollMs: 50 });
  console.log("ready");
  // Work until every task is finished (by either worker), then stop: parks nothing, all are done.
  await new Promise<void>((resolve) => {
    process.stdin.once("data", () => resolve());
  });
  await pool.stop();
  await store.close();
} else {
  const unreachable = await probe();
  if (unreachable !== undefined) {
    if (process.env.SEMA_REQUIRE_POSTGRES === "1") throw new Error(`no PostgreSQL at ${url}: ${unreachable}`);
    console.log(`skipped: no PostgreSQL at ${url} (${unreachable}); set SEMA_POSTGRES_URL to run it`);
    process.exit(0);
  }
  // A schema of its own, dropped at the end, so the example never touches other data.
  const fresh = `sema_example_${randomBytes(6).toString("hex")}`;
  const store = new PostgresStore({ connectionString: url, schema: fresh });
  try {
    const workers = ["worker-a", "worker-b"].map((worker) => startWorker(fresh, worker));
    await Promise.all(workers.map((worker) => worker.ready));
    // Tasks are only recorded here; the workers are told through the database (LISTEN/NOTIFY).
    const ids = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => startTask(store, { objective: `Job ${n}` })));
    await until(async () =>
      (await Promise.all(ids.map((id) => store.getTask(id)))).every((t) => isTerminal(t.summary.status)),
    );
    for (const worker of workers) worker.stop();
    await Promise.all(workers.map((worker) => worker.exited));

    const answers: string[] = [];
    for (const id of ids) {
      const events = await store.read(id);
      const done = events.filter((event) => event.type === "task_completed");
      const legs = events.filter((event) => event.type === "leg_started");
      if (done.length !== 1 || legs.length !== 1) throw new Error(`task ${id} did not run exactly once`);
      answers.push((await createAgent({ model: new ScriptedModel([]), store }).continue(id)).text);
    }
    for (const [index, id] of ids.entries()) console.log(`Job ${index + 1} (${id}): one leg, ${answers[index]}`);
    const byWorker = new Set(answers);
    if (byWorker.size !== 2) throw new Error(`expected both workers to run tasks: ${answers.join(", ")}`);
    console.log(`${ids.length} tasks on one PostgreSQL database, each run once: ${answers.sort().join(", ")}`);
  } finally {
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
    await client.end();
  }
}

/** Why the database cannot be used (a short connection attempt), or undefined when it answers. */
async function probe(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** This file again as a worker: `ready` once it prints so, `stop()` to end it (a line on its stdin). */
function startWorker(schemaName: string, worker: string) {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, [...process.execArgv, self, "worker", schemaName, worker], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve, reject) => {
    proc.on("error", reject);
    proc.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${worker} exited ${code}`))));
  });
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: proc.stdout }).on("line", (line) => line === "ready" && resolve());
    exited.then(() => reject(new Error(`${worker} ended before it was ready`)), reject);
  });
  return { ready, exited, stop: () => proc.stdin.end("stop\n") };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the workers");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// `sema serve --metrics` as a real process: GET /metrics answers a token with the metrics role
// (the first token has every role) with the Prometheus text of the tasks it ran, refuses a request
// without a token, and is not there at all without the flag (the role checks: metrics-route.test.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const NODE_ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `sema <args>` in a fresh directory, until it serves; its URL, first token and a stop. */
async function sema(args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "sema-metrics-"));
  dirs.push(dir);
  writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "Measured." }] }));
  const child = spawn(process.execPath, [NODE_ENTRY, ...args, "--port", "0", "--model", "script:turns.json"], {
    cwd: dir,
    env: {
      ...process.env,
      SEMA_STORE_URL: "",
      SEMA_DB: "",
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      OTEL_METRICS_EXPORTER: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await expect.poll(() => output, { timeout: 30_000, interval: 50 }).toMatch(/Bearer <token>/);
  const url = /serving (http:\/\/\S+)/.exec(output)?.[1] ?? "";
  const token = /\n\n {2}(\S+)\n\n/.exec(output)?.[1] ?? "";
  return {
    url,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    output: () => output,
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

describe("sema serve --metrics", () => {
  it("serves the Prometheus text of its tasks on GET /metrics to a token with the metrics role", {
    timeout: 90_000,
  }, async () => {
    const node = await sema(["serve", "--metrics"]);
    expect(node.output()).toContain(`metrics at ${node.url}/metrics`);
    const created = await fetch(`${node.url}/v1/tasks`, {
      method: "POST",
      headers: node.headers,
      body: JSON.stringify({ objective: "Measure it" }),
    });
    const { taskId } = (await created.json()) as { taskId: string };
    await expect
      .poll(
        async () =>
          (
            (await (await fetch(`${node.url}/v1/tasks/${taskId}`, { headers: node.headers })).json()) as {
              status: string;
            }
          ).status,
        { timeout: 30_000, interval: 50 },
      )
      .toBe("completed");
    // The leg's end is recorded as its events are appended; polled, not slept on.
    let text = "";
    await expect
      .poll(
        async () => {
          const response = await fetch(`${node.url}/metrics`, { headers: node.headers });
          text = await response.text();
          return (
            response.status === 200 && /sema_task_ended_total\{[^}]*sema_task_status="completed"[^}]*\} 1/.test(text)
          );
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBe(true);
    expect(text).toMatch(/gen_ai_client_operation_duration_count\{gen_ai_operation_name="chat"[^}]*\} 1/);
    expect(text).toMatch(/sema_task_started_total\{[^}]*\} 1/);
    expect(text).toMatch(/sema_legs_running\{[^}]*\} 0/);
    // The store's tasks by status and its size, from Store.stats of the SQLite file.
    expect(text).toMatch(/sema_tasks\{[^}]*sema_task_status="completed"[^}]*\} 1/);
    expect(text).toMatch(/sema_store_bytes\{[^}]*\} [1-9][0-9]*/);
    expect(text).not.toContain(taskId);
    expect((await fetch(`${node.url}/metrics`)).status).toBe(401);
    expect(await node.stop(), node.output()).toBe(0);
  });

  it("has no GET /metrics without the flag", { timeout: 60_000 }, async () => {
    const node = await sema(["serve"]);
    expect((await fetch(`${node.url}/metrics`, { headers: node.headers })).status).toBe(404);
    expect(await node.stop(), node.output()).toBe(0);
  });
});

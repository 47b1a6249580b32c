// A custom agent served over HTTP: `sema serve` (started here as a child process, on port 0 and a
// fresh SQLite file) hosts the agents of ./sema.config.ts. On its first start it prints a token;
// the client below creates a task with fetch and follows its events over SSE until it completes.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// The `sema` command of @sema-agent/cli, run with this Node (no PATH lookup, no shell).
const sema = join(dirname(createRequire(import.meta.url).resolve("@sema-agent/cli/package.json")), "bin", "sema.js");
const db = join(mkdtempSync(join(tmpdir(), "sema-serve-")), "sema.db");
const server = spawn(process.execPath, [sema, "serve", "--port", "0", "--db", db], { cwd: here });
server.stderr.pipe(process.stderr);

try {
  const { url, token } = await started();
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const created = await fetch(`${url}/v1/tasks`, {
    method: "POST",
    headers,
    body: JSON.stringify({ objective: "Say hello, loudly.", agent: "shouter" }),
  });
  if (created.status !== 201) throw new Error(`POST /v1/tasks: ${created.status} ${await created.text()}`);
  const { taskId } = (await created.json()) as { taskId: string };
  console.log(`sema serve at ${url}; POST /v1/tasks → 201, task ${taskId}`);

  // SSE: the stored events from the start, then live ones; each frame has `event:` and `data:`.
  const seen: string[] = [];
  let result = "";
  const stop = new AbortController();
  const events = await fetch(`${url}/v1/tasks/${taskId}/events`, { headers, signal: stop.signal });
  if (events.body === null) throw new Error("no event stream");
  let buffer = "";
  for await (const chunk of events.body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const type = /^event: (.+)$/m.exec(frame)?.[1];
      const data = /^data: (.+)$/m.exec(frame)?.[1];
      if (type === undefined || data === undefined) continue;
      seen.push(type);
      if (type === "task_completed") result = (JSON.parse(data) as { result: string }).result;
    }
    if (result !== "") break;
  }
  stop.abort();
  if (result !== "HELLO!" || !seen.includes("tool_result")) throw new Error(`unexpected: ${result} after ${seen}`);
  console.log(`GET /v1/tasks/${taskId}/events (SSE): ${seen.join(", ")}`);
  console.log(`served by sema serve, followed over SSE (${seen.length} events): ${result}`);
} finally {
  // SIGTERM stops sema serve gracefully (running legs park, the store closes); wait for it.
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
}

/** Wait for the server's start-up lines: the address it listens on and the first token it made. */
function started(): Promise<{ url: string; token: string }> {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`sema serve did not start:\n${out}`)), 20_000);
    server.on("exit", (code) => reject(new Error(`sema serve exited ${code}:\n${out}`)));
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /serving (http:\/\/\S+)/.exec(out)?.[1];
      const token = /\n\n {2}(\S+)\n\n/.exec(out)?.[1];
      if (url !== undefined && token !== undefined && out.includes("Bearer <token>")) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    });
  });
}

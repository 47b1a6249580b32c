/**
 * `sema serve [--host 127.0.0.1] [--port 7777] [--db path] [--model …] [--workers N]`: the HTTP/SSE
 * API and a pool of workers in one process over the SQLite file (the embedded default). Agents come
 * from sema.config.ts/.js/.mjs/.json in the working directory, or the default agent on --model.
 * On the first start it creates a token for principal `local` with every role and prints it once.
 */
import { parseArgs } from "node:util";
import { createAgentRegistry, SqliteTokenStore, serve as startServing } from "@sema-agent/server";
import { loadAgents } from "../agent-config.ts";
import { type CliIo, dbPath, openStore, UsageError } from "../context.ts";
import { requireModel } from "./run.ts";

export async function serve(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      db: { type: "string" },
      model: { type: "string" },
      workers: { type: "string" },
    },
  });
  const port = values.port === undefined ? 7777 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, got ${values.port}`);
  const concurrency = values.workers === undefined ? 4 : Number(values.workers);
  if (!Number.isInteger(concurrency) || concurrency < 0)
    throw new UsageError(`--workers must be a non-negative integer, got ${values.workers}`);
  const set = await loadAgents(io.cwd, io.env, () => requireModel(io, values.model));
  const path = dbPath(io, values.db);
  const store = openStore(path);
  const tokens = new SqliteTokenStore({ path });
  const serving = await startServing({
    store,
    tokens,
    agents: createAgentRegistry(set.agents, set.defaultAgent),
    host: values.host ?? "127.0.0.1",
    port,
    // --workers 0: an API-only node; workers elsewhere share the store.
    workers: concurrency === 0 ? false : { concurrency },
    onError: (error, taskId) =>
      io.stderr.write(
        `sema serve: ${taskId === undefined ? "" : `task ${taskId}: `}${error instanceof Error ? error.message : String(error)}\n`,
      ),
  });
  io.stdout.write(
    `Sema is serving ${serving.url} (store ${path}, agents from ${set.source}, ${concurrency === 0 ? "no workers: API only" : `${concurrency} workers`})\n`,
  );
  if (serving.firstToken !== undefined) {
    io.stdout.write(
      `First start: a token for principal "local" with every role. It is shown once and only its hash is stored:\n\n  ${serving.firstToken.token}\n\nUse it as: Authorization: Bearer <token>\n`,
    );
  }
  // Ctrl-C or SIGTERM: stop claiming, park running legs at their next boundary, then close.
  await new Promise<void>((resolve) => {
    if (io.interrupt === undefined || io.interrupt.aborted) return resolve();
    io.interrupt.addEventListener("abort", () => resolve(), { once: true });
  });
  io.stdout.write("Stopping: running tasks park at their next step and resume on the next start.\n");
  await serving.close({ deadlineMs: 10_000 });
  await tokens.close();
  await store.close();
  return 0;
}

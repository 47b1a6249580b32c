/**
 * Slow clients against a real server process: one task's log grown to `--log-mb` MB, then
 * `--clients` connections open its event stream and never read a byte. Reports the server's RSS
 * before and at most during the run, and how long a bystander's `GET /v1/tasks/{id}` takes
 * meanwhile. Targets (issue 13): RSS growth < 300 MB and every bystander request < 1 s with 60
 * clients on a 100 MB log.
 *
 *   npm run sse-slow -w @sema-agent/bench                     # 60 clients, 100 MB, 15 s
 *   npm run sse-slow -w @sema-agent/bench -- --clients 10 --log-mb 20 --seconds 5
 *   npm run bench:sse-slow -- --save         # and write bench/results/sse-slow/<date>-<commit>.json
 */
import { fork } from "node:child_process";
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";
import { MemoryStore, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { listen } from "@sema-agent/server/node";
import { benchApp, describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

interface Ready {
  type: "ready";
  url: string;
  port: number;
  token: string;
  bigTask: string;
  tinyTask: string;
}

/** The server process: grows the log, serves, answers RSS questions. */
async function serve(logMb: number): Promise<void> {
  const store = new MemoryStore();
  const { app, token } = await benchApp(store);
  const bigTask = await startTask(store, { objective: "Grow", principal: "bench" });
  const tinyTask = await startTask(store, { objective: "Bystander", principal: "bench" });
  // Events of ~50 KB, as a model turn with a long answer or a large tool result would be.
  // Each its own flat string (not a rope over one shared string), so the log really is that size.
  const text = (n: number) => Buffer.alloc(50_000, String.fromCharCode(97 + (n % 26))).toString();
  let seq = (await store.getTask(bigTask)).lastSeq;
  for (let i = 0; i < (logMb * 1_000_000) / 50_000; i += 20) {
    const batch = Array.from({ length: 20 }, (_, j) => make.note(text(i + j)));
    seq = (await store.append(bigTask, batch, { expectedSeq: seq })).at(-1)?.seq ?? seq;
  }
  const server = await listen(app, { port: 0 });
  process.on("message", (message: { type: string }) => {
    if (message.type === "rss") {
      globalThis.gc?.();
      process.send?.({ type: "rss", rss: process.memoryUsage().rss });
    }
    if (message.type === "stop") void server.close().then(() => process.exit(0));
  });
  const ready: Ready = { type: "ready", url: server.url, port: server.port, token, bigTask, tinyTask };
  process.send?.(ready);
}

const { values } = parseArgs({
  options: {
    serve: { type: "boolean", default: false },
    clients: { type: "string", default: "60" },
    "log-mb": { type: "string", default: "100" },
    seconds: { type: "string", default: "15" },
    save: { type: "boolean", default: false },
  },
});
const LOG_MB = Number(values["log-mb"]);

if (values.serve) await serve(LOG_MB);
else {
  const machine = describeMachine();
  const CLIENTS = Number(values.clients);
  const SECONDS = Number(values.seconds);
  const child = fork(new URL(import.meta.url).pathname, ["--serve", "--log-mb", String(LOG_MB)], {
    execArgv: ["--conditions=source", "--expose-gc"],
  });
  const replies: ((message: { type: string; rss?: number }) => void)[] = [];
  const ready = await new Promise<Ready>((resolve) => {
    child.on("message", (message: { type: string; rss?: number }) => {
      if (message.type === "ready") resolve(message as Ready);
      else replies.shift()?.(message);
    });
  });
  const rss = () =>
    new Promise<number>((resolve) => {
      replies.push((message) => resolve(message.rss ?? Number.NaN));
      child.send({ type: "rss" });
    });
  const mb = (bytes: number) => bytes / 1024 / 1024;
  const before = await rss();

  // Clients that send the request and never read: the kernel's buffers fill, then the server's.
  const sockets: Socket[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const socket = connect(ready.port, "127.0.0.1");
    socket.pause();
    socket.on("error", () => {});
    socket.write(
      `GET /v1/tasks/${ready.bigTask}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ready.token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    sockets.push(socket);
  }

  const latencies: number[] = [];
  let peak = before;
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    const response = await fetch(`${ready.url}/v1/tasks/${ready.tinyTask}`, {
      headers: { authorization: `Bearer ${ready.token}` },
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - start);
    peak = Math.max(peak, await rss());
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const socket of sockets) socket.destroy();
  child.send({ type: "stop" });
  const first = latencies[0] ?? Number.NaN;
  latencies.sort((a, b) => a - b);

  console.log(formatMachine(machine));
  console.log(`\n${CLIENTS} clients that never read, on a ${LOG_MB} MB log, for ${SECONDS} s\n`);
  const rows: ResultRow[] = [
    { subject: "server RSS", metric: "before the clients", unit: "MB", samples: [mb(before)] },
    { subject: "server RSS", metric: "peak with the clients", unit: "MB", samples: [mb(peak)] },
    {
      subject: "server RSS",
      metric: "growth",
      unit: "MB",
      samples: [mb(peak - before)],
      target: { value: 300, higher: false },
    },
    {
      subject: "bystander GET /v1/tasks/{id}",
      metric: "slowest",
      unit: "ms",
      samples: [latencies.at(-1) ?? Number.NaN],
      target: { value: 1000, higher: false },
    },
    {
      subject: "bystander GET /v1/tasks/{id}",
      metric: "first (as the clients connect)",
      unit: "ms",
      samples: [first],
    },
    {
      subject: "bystander GET /v1/tasks/{id}",
      metric: "median",
      unit: "ms",
      samples: [latencies[Math.floor(latencies.length / 2)] ?? Number.NaN],
    },
    { subject: "bystander GET /v1/tasks/{id}", metric: "requests", unit: "requests", samples: [latencies.length] },
  ];
  console.log(formatTable(rows));
  saveIfAsked("sse-slow", machine, rows);
}

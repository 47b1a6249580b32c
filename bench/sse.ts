/**
 * The serving benchmark: SSE fan-out — 1,000 subscribers on one task's event stream over loopback
 * sockets, events delivered per second and latency from append to receipt (p50 / p99), once with
 * the events appended back to back (burst) and once at one every 10 ms (steady) — and the
 * throughput of POST /v1/tasks/:id/inputs. The server runs in this process, its clients in
 * `--client-processes` others (default 1), as remote clients would; they still share the
 * machine's two cores with it, so the figures are a floor. The steady phase runs a second time
 * against a bare `node:net` server that writes each event's frame to every socket itself (the
 * floor: what this machine's loopback costs one process for the same bytes, without Sema).
 *
 *   npm run bench:sse                                    # 1,000 subscribers, 200 events, 2,000 inputs
 *   npm run sse -w @sema-agent/bench -- --subscribers 200 --events 100 --inputs 500
 *   npm run bench:sse -- --client net                    # bare-socket clients (the lightest)
 *   npm run bench:sse -- --warmup 100                    # 100 unmeasured events first, each phase
 *   npm run bench:sse -- --client-processes 2            # the subscribers split over two processes
 *   npm run bench:sse -- --save                          # and write bench/results/sse/<date>-<commit>.json
 */
import { type ChildProcess, fork } from "node:child_process";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { parseArgs } from "node:util";
import { MemoryStore, type StoredEvent, startTask } from "@sema-agent/core";
import { make } from "@sema-agent/core/testing";
import { listen } from "@sema-agent/server/node";
import { benchApp, describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";
import type { SubscribersData } from "./lib/sse-subscribers.ts";

const { values } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000" },
    events: { type: "string", default: "200" },
    inputs: { type: "string", default: "2000" },
    "steady-ms": { type: "string", default: "10" },
    warmup: { type: "string", default: "0" },
    client: { type: "string", default: "http" },
    "client-processes": { type: "string", default: "1" },
    save: { type: "boolean", default: false },
  },
});
const machine = describeMachine();
const SUBSCRIBERS = Number(values.subscribers);
const EVENTS = Number(values.events);
const INPUTS = Number(values.inputs);
const STEADY_MS = Number(values["steady-ms"]);
/** Events sent at the steady pace before each phase and left out of its figures (cold JIT). */
const WARMUP = Number(values.warmup);
const CLIENT = values.client === "fetch" || values.client === "net" ? values.client : "http";
const CLIENT_PROCESSES = Math.max(1, Math.min(SUBSCRIBERS, Number(values["client-processes"])));

/** Milliseconds on the machine's monotonic clock: the clients' receipt times are on the same one. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const store = new MemoryStore();
const { app, token } = await benchApp(store);
const server = await listen(app, { port: 0 });
const headers = { authorization: `Bearer ${token}` };
/** One phase's figures: per-receipt latencies (append → receipt) and events delivered. */
interface Phase {
  latencies: number[];
  delivered: number;
  ms: number;
  /** CPU time of the server's process and its clients' over the phase, in µs. */
  cpuUs: number;
  /** CPU time of the server's process alone over the phase, in µs (the appends included). */
  serverUs: number;
}

/**
 * The floor: a bare `node:net` server answering each GET with a close-delimited 200, then
 * writing each event's frame (Sema's bytes) to every socket at once, one `write` each, as soon
 * as it is appended: no HTTP framework, no queue, no tail.
 */
async function bareServer() {
  const encoder = new TextEncoder();
  const sockets: Socket[] = [];
  const bare = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on("error", () => {});
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n");
      sockets.push(socket);
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`,
    send(event: StoredEvent): void {
      const frame = encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      for (const socket of sockets) socket.write(frame);
    },
    close(): void {
      for (const socket of sockets) socket.end();
      bare.close();
    },
  };
}

/**
 * `SUBSCRIBERS` clients on a fresh task's stream; `append(i)` is called for each of `EVENTS`
 * events when `schedule(i)` says (burst: back to back; steady: every `STEADY_MS`), then the
 * terminal event ends every stream.
 */
async function fanOut(pace: "burst" | "steady", floor = false): Promise<Phase> {
  const bare = floor ? await bareServer() : undefined;
  const taskId = await startTask(store, { objective: "Fan out", principal: "bench" });
  const startSeq = (await store.getTask(taskId)).lastSeq;
  const appendedAt = new Map<number, number>();
  // The subscribers split over the client processes, the remainder to the first ones.
  const clients: ChildProcess[] = Array.from({ length: CLIENT_PROCESSES }, (_, i) => {
    const data: SubscribersData = {
      url: `${bare?.url ?? server.url}/v1/tasks/${taskId}/events?after=${startSeq}`,
      headers,
      count: Math.floor(SUBSCRIBERS / CLIENT_PROCESSES) + (i < SUBSCRIBERS % CLIENT_PROCESSES ? 1 : 0),
      client: CLIENT,
    };
    return fork(new URL("./lib/sse-subscribers.ts", import.meta.url), [JSON.stringify(data)], {
      serialization: "advanced",
    });
  });
  interface Message {
    type: string;
    ids: number[];
    times: number[];
    cpuUs: number;
  }
  const fromOne = (child: ChildProcess, type: string) =>
    new Promise<Message>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`a client process exited (${code}) before "${type}"`));
      child.once("error", reject);
      child.once("exit", exited);
      child.on("message", function listener(m: Message) {
        if (m.type !== type) return;
        child.off("message", listener);
        child.off("exit", exited);
        resolve(m);
      });
    });
  const message = async (type: string) => {
    const all = await Promise.all(clients.map((child) => fromOne(child, type)));
    return {
      ids: all.flatMap((m) => m.ids ?? []),
      times: all.flatMap((m) => m.times ?? []),
      cpuUs: all.reduce((sum, m) => sum + (m.cpuUs ?? 0), 0),
    };
  };
  await message("connected");
  let seq = startSeq;
  // The clients' worker is new each phase: warm-up events let its JIT (and the server's paths
  // for these connections) settle before anything is measured.
  for (let i = 0; i < WARMUP; i++) {
    await new Promise((r) => setTimeout(r, STEADY_MS));
    const [stored] = await store.append(taskId, [make.note(`warm-up ${i}`, "bench")], { expectedSeq: seq });
    if (stored !== undefined) bare?.send(stored);
    seq = stored?.seq ?? seq + 1;
  }
  await new Promise((r) => setTimeout(r, 200));

  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const measuredAfter = seq;
  for (let i = 0; i < EVENTS; i++) {
    if (pace === "steady") {
      // On an absolute schedule, so a slow append does not push every later one back.
      const wait = start + i * STEADY_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    } else if (i % 10 === 9) await new Promise((r) => setImmediate(r));
    const at = monotonicMs();
    const [stored] = await store.append(taskId, [make.note(`event ${i}`, "bench")], { expectedSeq: seq });
    if (stored !== undefined) bare?.send(stored);
    seq = stored?.seq ?? seq + 1;
    appendedAt.set(seq, at);
  }
  const [last] = await store.append(taskId, [{ type: "task_completed", v: 1, result: "done" }], { expectedSeq: seq });
  if (bare !== undefined && last !== undefined) {
    bare.send(last);
    bare.close();
  }
  const { ids, times, cpuUs: clientsUs } = await message("done");
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  for (const child of clients) child.kill();
  // Every subscriber got every event exactly once, or the figures mean nothing.
  if (ids.length !== SUBSCRIBERS * (WARMUP + EVENTS + 1))
    throw new Error(`${ids.length} receipts, expected ${SUBSCRIBERS * (WARMUP + EVENTS + 1)}`);
  const measured = ids.filter((id) => id > measuredAfter).length;
  const latencies: number[] = [];
  ids.forEach((id, i) => {
    const at = appendedAt.get(id);
    if (at !== undefined) latencies.push((times[i] ?? Number.NaN) - at);
  });
  latencies.sort((a, b) => a - b);
  const serverUs = cpu.user + cpu.system;
  return { latencies, delivered: measured, ms, cpuUs: serverUs + clientsUs, serverUs };
}

const burst = await fanOut("burst");
const steady = await fanOut("steady");
const floor = await fanOut("steady", true);

// POST /inputs, 16 in flight: all to one parked task (each append races the others for the end
// of one log, and a loser retries), then spread over 16 tasks (no contention).
async function postInputs(targets: readonly string[]): Promise<number> {
  let sent = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async (_, worker) => {
      const target = targets[worker % targets.length] as string;
      while (sent < INPUTS) {
        sent++;
        const response = await fetch(`${server.url}/v1/tasks/${target}/inputs`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ text: `input ${sent}`, carrier: "nextTurn" }),
        });
        if (response.status !== 202)
          throw new Error(`POST /inputs answered ${response.status}: ${await response.text()}`);
      }
    }),
  );
  return (INPUTS * 1000) / (performance.now() - start);
}
const oneTask = await postInputs([await startTask(store, { objective: "Take inputs", principal: "bench" })]);
const spread = await postInputs(
  await Promise.all(
    Array.from({ length: 16 }, () => startTask(store, { objective: "Take inputs", principal: "bench" })),
  ),
);
await server.close();

console.log(formatMachine(machine));
console.log(
  `\n${SUBSCRIBERS} subscribers × ${EVENTS + 1} events over loopback (${CLIENT} clients in ${CLIENT_PROCESSES} process(es), ${WARMUP} warm-up events first), burst then one every ${STEADY_MS} ms; ${INPUTS} inputs, 16 in flight\n`,
);
// The steady phase's targets: 100,000 deliveries a second, p99 ≤ 20 ms.
const fanRows = (phase: Phase, label: string, steady = false): ResultRow[] => [
  {
    subject: `SSE fan-out, ${label}`,
    metric: "events delivered per second (all subscribers)",
    unit: "events/s",
    samples: [(phase.delivered * 1000) / phase.ms],
    ...(steady ? { target: { value: 100_000, higher: true } } : {}),
  },
  {
    subject: `SSE fan-out, ${label}`,
    metric: "append → receipt, p50",
    unit: "ms",
    samples: [percentile(phase.latencies, 50)],
  },
  {
    subject: `SSE fan-out, ${label}`,
    metric: "append → receipt, p99",
    unit: "ms",
    samples: [percentile(phase.latencies, 99)],
    ...(steady ? { target: { value: 20, higher: false } } : {}),
  },
  {
    subject: `SSE fan-out, ${label}`,
    metric: "CPU per delivered event (server + clients)",
    unit: "µs",
    samples: [phase.cpuUs / phase.delivered],
  },
  {
    subject: `SSE fan-out, ${label}`,
    metric: "server CPU per delivered event (server process)",
    unit: "µs",
    samples: [phase.serverUs / phase.delivered],
  },
  {
    subject: `SSE fan-out, ${label}`,
    metric: "events each subscriber received",
    unit: "events",
    samples: [phase.delivered / SUBSCRIBERS],
  },
];
const rows: ResultRow[] = [
  ...fanRows(burst, "burst"),
  ...fanRows(steady, `one every ${STEADY_MS} ms`, true),
  ...fanRows(floor, `one every ${STEADY_MS} ms, bare node:net server (the floor)`),
  { subject: "POST /inputs", metric: "accepted per second, all to one task", unit: "requests/s", samples: [oneTask] },
  { subject: "POST /inputs", metric: "accepted per second, over 16 tasks", unit: "requests/s", samples: [spread] },
];
console.log(formatTable(rows));
saveIfAsked("sse", machine, rows);

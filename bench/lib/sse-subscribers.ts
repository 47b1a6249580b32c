/**
 * The SSE benchmark's clients, in a process of their own (started by `sse.ts` with `fork`, its
 * `SubscribersData` as JSON in `argv[2]`), so that the server's process is the server's alone and
 * the clients' reads are not the server's CPU: `count` subscribers read one event stream and note,
 * for each stored event (by id), when it arrived (`monotonicMs()`: `CLOCK_MONOTONIC`, one clock for
 * every process of the machine). Sends `{ type: "connected" }` once every stream answered, then
 * `{ type: "done", ids, times, cpuUs }` when every stream ended.
 */
import { Agent, get as httpGet } from "node:http";
import { connect } from "node:net";

/** What the worker is started with. */
export interface SubscribersData {
  url: string;
  headers: Record<string, string>;
  count: number;
  /**
   * `http` (node:http), `fetch`, or `net`: a bare socket reading the close-delimited body, the
   * lightest, to tell the server's share of the latency from its co-located clients'.
   */
  client: "http" | "fetch" | "net";
}

/** Milliseconds on the machine's monotonic clock, comparable across its processes. */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const data = JSON.parse(process.argv[2] ?? "{}") as SubscribersData;
const send = (message: object) => process.send?.(message);
const cpuStart = process.cpuUsage();
const ids: number[] = [];
const times: number[] = [];
let connected = 0;

function onText(state: { buffer: string }, text: string): void {
  const now = monotonicMs();
  state.buffer += text;
  let end = state.buffer.indexOf("\n\n");
  while (end !== -1) {
    const frame = state.buffer.slice(0, end);
    state.buffer = state.buffer.slice(end + 2);
    const id = /^id: (\d+)$/m.exec(frame)?.[1];
    if (id !== undefined) {
      ids.push(Number(id));
      times.push(now);
    }
    end = state.buffer.indexOf("\n\n");
  }
}

function opened(): void {
  connected++;
  if (connected === data.count) send({ type: "connected" });
}

async function subscribeFetch(): Promise<void> {
  const init = { headers: data.headers };
  // A pooled connection the server is closing as it is reused resets: connect again, as a client would.
  const response = await fetch(data.url, init).catch(() => fetch(data.url, init));
  opened();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const state = { buffer: "" };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onText(state, decoder.decode(value, { stream: true }));
  }
}

const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
function subscribeHttp(): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = httpGet(data.url, { headers: data.headers, agent }, (response) => {
      opened();
      response.setEncoding("utf8");
      const state = { buffer: "" };
      response.on("data", (text: string) => onText(state, text));
      response.on("end", resolve);
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

function subscribeNet(): Promise<void> {
  const url = new URL(data.url);
  const lines = Object.entries(data.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () =>
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${lines.join("")}\r\n`),
    );
    socket.setEncoding("latin1");
    const state = { buffer: "" };
    let head: string | undefined = "";
    socket.on("data", (text: string) => {
      if (head === undefined) return onText(state, text);
      head += text;
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      const status = head.slice(0, end);
      if (!status.startsWith("HTTP/1.1 200 ") || /transfer-encoding/i.test(status))
        return reject(new Error(`--client net reads a close-delimited 200 only: ${status.split("\r\n")[0]}`));
      opened();
      const rest = head.slice(end + 4);
      head = undefined;
      onText(state, rest);
    });
    socket.on("end", resolve);
    socket.on("error", reject);
  });
}

const subscribe = data.client === "fetch" ? subscribeFetch : data.client === "net" ? subscribeNet : subscribeHttp;
await Promise.all(Array.from({ length: data.count }, () => subscribe()));
const cpu = process.cpuUsage(cpuStart);
// The parent ends this process once it has the message (exiting first could overtake it).
send({ type: "done", ids, times, cpuUs: cpu.user + cpu.system });

// A React page with the AI SDK's `useChat` (./page.tsx), built here with Vite, against Sema's chat
// endpoint: `serve()` hosts a scripted agent with the UI stream protocol; a small server of the page's own serves the build and
// forwards /v1 to Sema with the token added, so the browser never holds it. Then headless Chromium
// types a message, watches it stream, steers the run with a second message, reloads mid-answer (the
// page resumes the turn from the log) and approves the call the agent asks for. `npm start --
// --serve` leaves the page running instead.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { defineTool, jsonSchema, MemoryStore } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { MemoryTokenStore } from "@sema-agent/server";
import { serve } from "@sema-agent/server/node";
import { uiStream } from "@sema-agent/server/ui-stream";
import { createAgentRegistry } from "@sema-agent/worker";
import { chromium } from "playwright-core";
import { build } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";
const LONG = "Looking around the notes first, one careful step at a time.";

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: jsonSchema<{ q: string }>({ type: "object", properties: { q: { type: "string" } }, required: ["q"] }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});
const writeNote = defineTool({
  name: "write_note",
  description: "Write a note (needs approval)",
  inputSchema: jsonSchema<{ text: string }>({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  }),
  needsApproval: true,
  execute: ({ text }) => `wrote ${text}`,
});
// Scripted so the example runs offline; slow enough to reload the page while it streams.
const model = new ScriptedModel(
  [
    { text: LONG, chunkSize: 2, deltaDelayMs: 60, toolCalls: [{ name: "lookup", input: { q: "style" } }] },
    // What the note says depends on whether the person's steer reached the model.
    (request) => {
      const steered = JSON.stringify(request.transcript).includes("Use tabs, please.");
      return {
        toolCalls: [{ name: "write_note", input: { text: steered ? "indent with tabs" : "indent with spaces" } }],
      };
    },
    { text: "All done." },
  ],
  { mode: "by-transcript" },
);

const out = mkdtempSync(join(tmpdir(), "sema-react-chat-"));
await build({ root: here, logLevel: "silent", build: { outDir: out, emptyOutDir: true } });

const tokens = new MemoryTokenStore();
const sema = await serve({
  store: new MemoryStore(),
  tokens,
  agents: createAgentRegistry({ default: { model, tools: [lookup, writeNote] } }),
  port: 0,
  workers: { pollMs: 50 },
  // The AI SDK's chat protocol, the one useChat speaks, beside /v1.
  protocols: [uiStream()],
});
const token = sema.firstToken?.token ?? "";

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** The page's server: its build, and /v1 forwarded to Sema with the token (streams as they come). */
async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://page");
  if (url.pathname.startsWith("/v1/")) {
    const body =
      request.method === "POST" ? await new Response(Readable.toWeb(request) as ReadableStream).text() : undefined;
    const answer = await fetch(`${sema.url}${url.pathname}${url.search}`, {
      method: request.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body }),
    });
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body === null) return void response.end();
    const stop = () => void answer.body?.cancel().catch(() => undefined);
    response.once("close", stop);
    Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream).pipe(response);
    return;
  }
  const file = normalize(join(out, url.pathname === "/" ? "index.html" : url.pathname));
  if (!file.startsWith(out) || !existsSync(file)) return void response.writeHead(404).end();
  response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
  response.end(readFileSync(file));
}
const page = createServer((request, response) => void handle(request, response).catch(() => response.destroy()));
await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
const pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;

async function close(): Promise<void> {
  page.closeAllConnections();
  await new Promise((resolve) => page.close(resolve));
  await sema.close({ deadlineMs: 2000 });
  rmSync(out, { recursive: true, force: true });
}

if (process.argv.includes("--serve")) {
  console.log(`useChat against Sema: open ${pageUrl}/ (Ctrl-C stops)`);
  process.once("SIGINT", () => void close());
} else if (!existsSync(CHROMIUM)) {
  await close();
  if (process.env.SEMA_REQUIRE_BROWSER === "1") throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${CHROMIUM} is missing`);
  console.log(`skipped: no Chromium at ${CHROMIUM} (the page still builds and serves: npm start -- --serve)`);
} else {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu"],
  });
  try {
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (error) => problems.push(error.message));
    const resumes: number[] = [];
    tab.on("response", (answer) => {
      if (answer.url().endsWith("/v1/chat/demo/stream")) resumes.push(answer.status());
    });
    await tab.goto(`${pageUrl}/?chat=demo`);
    await tab.fill("#prompt", "Write our style note.");
    await tab.click("form button");
    // Mid-answer: part of the text is on the page. Steer it (a message typed during the run),
    // then reload the page while it still streams.
    // (A string: it runs in the page, where there is a document.)
    const midAnswer = `(() => { const text = document.querySelector("li.assistant p")?.textContent ?? "";
      return text.length > 4 && text.length < ${LONG.length}; })()`;
    await tab.waitForFunction(midAnswer, undefined, { timeout: 10_000 });
    await tab.fill("#prompt", "Use tabs, please.");
    await tab.click("form button");
    await tab.getByText('"status":"received"').waitFor({ timeout: 10_000 });
    await tab.waitForFunction(midAnswer, undefined, { timeout: 10_000 });
    await tab.reload();
    // After the reload, the steer is taken at the step's end, and the page shows it applied.
    await tab.getByText('"status":"applied"').waitFor({ timeout: 10_000 });
    // The reloaded page resumed the turn (GET …/stream answered 200) and reached the approval.
    await tab.getByRole("button", { name: "Approve" }).click({ timeout: 10_000 });
    await tab.getByText("All done.").waitFor({ timeout: 10_000 });
    const texts = await tab.$$eval("li.assistant p", (items) => items.map((item) => item.textContent));
    const tools = await tab.$$eval(".tool", (items) =>
      items.map((item) => `${item.dataset.tool}:${item.dataset.state}`),
    );
    const expected = [LONG, "All done."];
    if (JSON.stringify(texts) !== JSON.stringify(expected)) throw new Error(`texts: ${JSON.stringify(texts)}`);
    if (tools.join() !== "lookup:output-available,write_note:output-available") throw new Error(`tools: ${tools}`);
    const note = await tab.locator('[data-tool="write_note"]').textContent();
    if (!note?.includes("indent with tabs")) throw new Error(`the steer did not reach the model: ${note}`);
    if (!resumes.includes(200)) throw new Error(`the reload did not resume the stream: ${resumes}`);
    if (problems.length > 0) throw new Error(`page errors: ${problems.join("; ")}`);
    console.log(`useChat streamed the answer; "Use tabs, please." typed mid-answer: received, then applied`);
    console.log(
      `reloaded mid-answer: GET /v1/chat/demo/stream answered ${resumes.join(", ")}, the turn resumed from the log`,
    );
    console.log(`tool parts: ${tools.join(", ")} (write_note approved on the page)`);
    console.log(
      `useChat in Chromium: steered mid-answer, reloaded, resumed from the log, approved write_note: ${texts.at(-1)}`,
    );
  } finally {
    await browser.close();
    await close();
  }
}

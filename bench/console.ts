/**
 * The studio (the web console) in headless Chromium against `serve()` on loopback: how long the
 * page takes to load (beside the floor: a one-module page loaded the same way), how long a 10,000-event task takes to open (every event folded; the result
 * and what is near the viewport drawn, the rest standing in as gaps), to scroll to its end, what
 * one more event costs once it is shown, and how many bytes the page's assets are (raw and gzipped).
 *
 *   npm run bench:console                  # 5 rounds
 *   npm run bench:console -- --rounds 3
 *   npm run bench:console -- --save        # and write bench/results/console/…json
 *
 * The appended events are timed inside the page with the studio's own modules (the fold, the
 * conversation, the timeline and the event log, loaded from their sources beside the page's bundle
 * (the same code), as the page draws a batch of one, the activity tab
 * hidden as it is by default), a layout forced after each, over the 10,000 events already shown
 * and with the conversation scrolled to its end. Needs Chromium (/usr/bin/chromium or SEMA_CHROMIUM).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, MemoryTokenStore } from "@sema-agent/server";
import { webConsole } from "@sema-agent/server/console";
import { serve } from "@sema-agent/server/node";
import { chromium } from "playwright-core";
import { routeModules } from "../packages/server/src/test-support/studio-browser.ts";
import { buildConsole } from "../scripts/build-console.ts";
import { describeMachine, formatMachine, formatTable, type ResultRow } from "./lib/index.ts";
import { saveIfAsked } from "./lib/results.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    appends: { type: "string", default: "500" },
    save: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const appends = Number(values.appends);
if (!Number.isInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
const machine = describeMachine();
// The server runs from its sources: the studio's bundle is built from the modules as they are now.
await buildConsole();
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";

// A task of about 10,000 events: a scripted model that looks a key up each turn (a model turn,
// the call's start and its result, and the framing of each), then answers.
const store = new MemoryStore();
const turns = 3_330;
const agent = { model: new ScriptedModel(lookupTurns(turns)), tools: [lookupTool] };
const taskId = await startTask(store, { objective: "Look every key up", principal: "local" });
await runLeg({ store, agent }, taskId);
const log = await store.read(taskId);
const events = log.length;
const lastSeq = log.at(-1)?.seq ?? 0;
const lastTurnSeq = log.findLast((event) => event.type === "model_turn")?.seq ?? 0;

const tokens = new MemoryTokenStore();
const token = (await tokens.create({ principal: "local", actorId: "bench" })).token;
const serving = await serve({
  protocols: [webConsole()],
  store,
  tokens,
  agents: createAgentRegistry({ default: agent }),
  port: 0,
  workers: false,
});
// The floor: a page of one tiny module from a bare node:http server, loaded in a fresh context of
// the same browser as the studio is. What a page load costs before any of the studio's own work.
const floorServer = createServer((request, response) => {
  if (request.url === "/m.js") {
    response.writeHead(200, { "content-type": "text/javascript" });
    response.end("document.title = 'floor';");
    return;
  }
  response.writeHead(200, { "content-type": "text/html" });
  response.end('<!doctype html><title>floor</title><script type="module" src="/m.js"></script><p>floor</p>');
}).listen(0, "127.0.0.1");
await new Promise((resolve) => floorServer.once("listening", resolve));
const floorUrl = `http://127.0.0.1:${(floorServer.address() as { port: number }).port}/`;
const NAVIGATION_MS = `(() => { const [n] = performance.getEntriesByType("navigation"); return n === undefined ? Number.NaN : n.loadEventEnd - n.startTime; })()`;

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});

/**
 * The append loop, in the page: the studio's modules over the shown log, one event at a time, as
 * the page draws a batch of one, with the conversation scrolled to its end (where a person reading
 * a live task is) and the activity tab hidden as it is by default. Each append is timed from the
 * fold to a forced layout; between two appends the page gets a frame (untimed), as it would
 * between two events arriving, so what the page draws when the end comes into view is drawn.
 */
const APPEND = `(async ({ taskId, token, appends }) => {
  const { TaskFold } = await import("/console/src/fold.js");
  const { ConversationView } = await import("/console/src/conversation.js");
  const { TimelineView } = await import("/console/src/timeline.js");
  const { EventLogView } = await import("/console/src/event-log.js");
  const response = await fetch("/v1/tasks/" + taskId + "/events?format=json&limit=1000", { headers: { authorization: "Bearer " + token } });
  let page = await response.json();
  const log = [...page.events];
  while (page.nextAfter !== undefined) {
    const next = await fetch("/v1/tasks/" + taskId + "/events?format=json&limit=1000&after=" + page.nextAfter, { headers: { authorization: "Bearer " + token } });
    page = await next.json();
    log.push(...page.events);
  }
  document.getElementById("workspace").hidden = true;
  const host = document.createElement("div");
  document.body.append(host);
  const parts = ["list", "result", "usage", "announce"].map(() => host.appendChild(document.createElement("div")));
  const [list, result, usage, announce] = parts;
  const activity = host.appendChild(document.createElement("div"));
  activity.hidden = true;
  const timelineList = activity.appendChild(document.createElement("ol"));
  const logList = activity.appendChild(document.createElement("ol"));
  const view = new ConversationView({ list, result, usage, announce }, { onFork: () => {}, attachment: () => document.createTextNode(""), approvalCard: () => document.createElement("div") });
  const timeline = new TimelineView(timelineList);
  const eventLog = new EventLogView(logList);
  const fold = new TaskFold();
  const shown = fold.addAll(log);
  view.update(fold, shown, false);
  timeline.update(fold.legs, shown.legs);
  eventLog.add(log);
  const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const toEnd = async () => { list.lastElementChild?.scrollIntoView({ block: "end" }); await frame(); await frame(); };
  await toEnd();
  let seq = log.at(-1).seq;
  const legId = "bench-leg";
  let ms = 0;
  for (let i = 0; i < appends; i += 1) {
    seq += 1;
    const at = new Date().toISOString();
    const event = i % 2 === 0
      ? { type: "model_turn", v: 1, taskId, seq, at, legId, sessionSeq: seq, text: "Checking **k" + i + "**.", toolCalls: [{ callId: "x" + i, name: "lookup", input: { key: "k" + i } }], usage: { inputTokens: 10, outputTokens: 5 }, finishReason: "tool-calls" }
      : { type: "tool_result", v: 1, taskId, seq, at, callId: "x" + (i - 1), name: "lookup", status: "ok", content: "value" };
    const start = performance.now();
    const change = fold.addAll([event]);
    view.update(fold, change, true);
    timeline.update(fold.legs, change.legs);
    eventLog.add([event]);
    void host.offsetHeight;
    ms += performance.now() - start;
    await toEnd();
  }
  const drawn = list.querySelectorAll(".msg, .tool-card, .note").length;
  host.remove();
  return { perEvent: ms / appends, drawn };
})`;

const load: number[] = [];
const floor: number[] = [];
const render: number[] = [];
const append: number[] = [];
const toEnd: number[] = [];
const elements: number[] = [];
for (let round = 0; round <= rounds; round++) {
  const floorContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const floorPage = await floorContext.newPage();
  await floorPage.goto(floorUrl, { waitUntil: "load" });
  const floorMs = (await floorPage.evaluate(NAVIGATION_MS)) as number;
  await floorContext.close();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(`sessionStorage.setItem("sema.token", ${JSON.stringify(token)})`);
  const page = await context.newPage();
  page.on("crash", () => console.error("the page crashed"));
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  // Load: navigation start to the load event, signed in (the token is in the tab already).
  await page.goto(`${serving.url}/`, { waitUntil: "load" });
  const loaded = (await page.evaluate(NAVIGATION_MS)) as number;
  await page.locator(`.task-row[data-task-id="${taskId}"]`).waitFor();
  // Open: from the click to every event folded and drawn as the page draws it (what is near the
  // viewport; the rest stands in as gaps of the right height), the result and the first message shown.
  const started = Date.now();
  await page.locator(`.task-row[data-task-id="${taskId}"]`).click();
  await page.locator(`#task[data-seq="${lastSeq}"]`).waitFor({ state: "attached" });
  await page.locator("#result", { hasText: "Done." }).waitFor();
  await page.locator(".msg.person").first().waitFor();
  const rendered = Date.now() - started;
  // To the end: scrolled to the bottom of the page until the last answer is drawn there.
  const scrolled = (await page.evaluate(`(async (seq) => {
    const start = performance.now();
    for (;;) {
      window.scrollTo(0, document.documentElement.scrollHeight);
      const last = document.querySelector('.msg.assistant[data-seq="' + seq + '"]');
      if (last !== null && last.getBoundingClientRect().top < window.innerHeight) return performance.now() - start;
      if (performance.now() - start > 60000) throw new Error("the last answer was never drawn");
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  })(${lastTurnSeq})`)) as number;
  // The append loop drives single modules (the page itself loads only the bundle), answered by the
  // browser; routed only now, so no interception is on while the load and the open are timed.
  await routeModules(page);
  const { perEvent, drawn } = (await page.evaluate(`${APPEND}(${JSON.stringify({ taskId, token, appends })})`)) as {
    perEvent: number;
    drawn: number;
  };
  await context.close();
  // Round 0 warms the server and the browser up.
  if (round === 0) continue;
  load.push(loaded);
  floor.push(floorMs);
  render.push(rendered);
  toEnd.push(scrolled);
  append.push(perEvent);
  elements.push(drawn);
}

// The assets a first visit downloads: every file the console serves, raw and gzipped.
const { CONSOLE_ASSETS, CONSOLE_DIR } = await import("../packages/server/src/console/console-routes.ts");
const files = new Set(Object.values(CONSOLE_ASSETS).map((asset) => asset.file));
let raw = 0;
let gzipped = 0;
for (const file of files) {
  const bytes = readFileSync(new URL(file, CONSOLE_DIR));
  raw += bytes.length;
  gzipped += gzipSync(bytes).length;
}

await browser.close();
await serving.close({ deadlineMs: 2000 });
floorServer.close();

const n = `${events.toLocaleString("en-US")}-event task`;
const rows: ResultRow[] = [
  { subject: "studio", metric: "page load (navigation to load event), loopback", unit: "ms", samples: load },
  {
    subject: "studio",
    metric: "floor: a one-module page's load in a fresh context of the same browser",
    unit: "ms",
    samples: floor,
  },
  {
    subject: "studio",
    metric: `open a ${n} (every event folded, result and first screen drawn)`,
    unit: "ms",
    samples: render,
  },
  { subject: "studio", metric: `scroll a ${n} to its end (last answer drawn)`, unit: "ms", samples: toEnd },
  { subject: "studio", metric: `one appended event over a ${n} (fold, draw, layout)`, unit: "ms", samples: append },
  {
    subject: "studio",
    metric: `conversation items drawn as elements after the appends (the rest are gaps)`,
    unit: "elements",
    samples: elements,
  },
  { subject: "studio", metric: `assets, ${files.size} files (raw)`, unit: "KiB", samples: [raw / 1024] },
  { subject: "studio", metric: `assets, ${files.size} files (gzip)`, unit: "KiB", samples: [gzipped / 1024] },
];
console.log(formatMachine(machine));
console.log(formatTable(rows));
saveIfAsked("console", machine, rows);

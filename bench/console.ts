/**
 * The studio (the web console) in headless Chromium against `serve()` on loopback: how long the
 * page takes to load, how long a 10,000-event task takes to show (every event in the log, the
 * conversation, the timeline and the result drawn), what one more event costs once it is shown,
 * and how many bytes the page's assets are (raw and gzipped).
 *
 *   npm run bench:console                  # 5 rounds
 *   npm run bench:console -- --rounds 3
 *   npm run bench:console -- --save        # and write bench/results/console/…json
 *
 * The appended events are timed inside the page with the studio's own modules (the fold, the
 * conversation, the timeline and the log entry, as the page draws a batch of one, the activity tab
 * hidden as it is by default), a layout forced after each, over the 10,000 events already shown. Needs Chromium (/usr/bin/chromium or
 * SEMA_CHROMIUM).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, MemoryTokenStore } from "@sema-agent/server";
import { webConsole } from "@sema-agent/server/console";
import { serve } from "@sema-agent/server/node";
import { chromium } from "playwright-core";
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
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";

// A task of about 10,000 events: a scripted model that looks a key up each turn (a model turn,
// the call's start and its result, and the framing of each), then answers.
const store = new MemoryStore();
const turns = 3_330;
const agent = { model: new ScriptedModel(lookupTurns(turns)), tools: [lookupTool] };
const taskId = await startTask(store, { objective: "Look every key up", principal: "local" });
await runLeg({ store, agent }, taskId);
const events = (await store.read(taskId)).length;

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
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});

/** The append loop, in the page: the studio's modules over the shown log, one event at a time. */
const APPEND = `(async ({ taskId, token, appends }) => {
  const { TaskFold } = await import("/console/fold.js");
  const { ConversationView } = await import("/console/conversation.js");
  const { TimelineView } = await import("/console/timeline.js");
  const { logEntry } = await import("/console/task-log.js");
  const response = await fetch("/v1/tasks/" + taskId + "/events?format=json&limit=1000", { headers: { authorization: "Bearer " + token } });
  let page = await response.json();
  const log = [...page.events];
  while (page.nextAfter !== undefined) {
    const next = await fetch("/v1/tasks/" + taskId + "/events?format=json&limit=1000&after=" + page.nextAfter, { headers: { authorization: "Bearer " + token } });
    page = await next.json();
    log.push(...page.events);
  }
  const host = document.createElement("div");
  document.body.append(host);
  const parts = ["list", "result", "usage", "announce"].map(() => host.appendChild(document.createElement("div")));
  const [list, result, usage, announce] = parts;
  // As on the page: the conversation shown, the activity (timeline and log) in a hidden tab.
  const activity = host.appendChild(document.createElement("div"));
  activity.hidden = true;
  const timelineList = activity.appendChild(document.createElement("ol"));
  const logList = activity.appendChild(document.createElement("ol"));
  const view = new ConversationView({ list, result, usage, announce }, { onFork: () => {}, attachment: () => document.createTextNode(""), approvalCard: () => document.createElement("div") });
  const timeline = new TimelineView(timelineList);
  const fold = new TaskFold();
  const shown = fold.addAll(log);
  view.update(fold, shown, false);
  timeline.update(fold.legs, shown.legs);
  for (const event of log) logList.append(logEntry(event));
  void host.offsetHeight;
  let seq = log.at(-1).seq;
  const legId = "bench-leg";
  const start = performance.now();
  for (let i = 0; i < appends; i += 1) {
    seq += 1;
    const at = new Date().toISOString();
    const event = i % 2 === 0
      ? { type: "model_turn", v: 1, taskId, seq, at, legId, sessionSeq: seq, text: "Checking **k" + i + "**.", toolCalls: [{ callId: "x" + i, name: "lookup", input: { key: "k" + i } }], usage: { inputTokens: 10, outputTokens: 5 }, finishReason: "tool-calls" }
      : { type: "tool_result", v: 1, taskId, seq, at, callId: "x" + (i - 1), name: "lookup", status: "ok", content: "value" };
    const change = fold.addAll([event]);
    view.update(fold, change, true);
    timeline.update(fold.legs, change.legs);
    logList.append(logEntry(event));
    void host.offsetHeight;
  }
  const ms = performance.now() - start;
  host.remove();
  return ms / appends;
})`;

const load: number[] = [];
const render: number[] = [];
const append: number[] = [];
for (let round = 0; round <= rounds; round++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(`sessionStorage.setItem("sema.token", ${JSON.stringify(token)})`);
  const page = await context.newPage();
  page.on("crash", () => console.error("the page crashed"));
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
  // Load: navigation start to the load event, signed in (the token is in the tab already).
  await page.goto(`${serving.url}/`, { waitUntil: "load" });
  const loaded = (await page.evaluate(
    `(() => { const [n] = performance.getEntriesByType("navigation"); return n === undefined ? Number.NaN : n.loadEventEnd - n.startTime; })()`,
  )) as number;
  await page.locator(`.task-row[data-task-id="${taskId}"]`).waitFor();
  // Render: from opening the task to its last event in the log and its result on the page.
  const started = Date.now();
  await page.locator(`.task-row[data-task-id="${taskId}"]`).click();
  await page
    .locator("#log > li")
    .nth(events - 1)
    .waitFor({ state: "attached" });
  await page.locator("#result", { hasText: "Done." }).waitFor();
  await page
    .locator(".msg.assistant")
    .nth(turns - 1)
    .waitFor({ state: "attached" });
  const rendered = Date.now() - started;
  const perEvent = (await page.evaluate(`${APPEND}(${JSON.stringify({ taskId, token, appends })})`)) as number;
  await context.close();
  // Round 0 warms the server and the browser up.
  if (round === 0) continue;
  load.push(loaded);
  render.push(rendered);
  append.push(perEvent);
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

const n = `${events.toLocaleString("en-US")}-event task`;
const rows: ResultRow[] = [
  { subject: "studio", metric: "page load (navigation to load event), loopback", unit: "ms", samples: load },
  { subject: "studio", metric: `open a ${n} (last event and result drawn)`, unit: "ms", samples: render },
  { subject: "studio", metric: `one appended event over a ${n} (fold, draw, layout)`, unit: "ms", samples: append },
  { subject: "studio", metric: `assets, ${files.size} files (raw)`, unit: "KiB", samples: [raw / 1024] },
  { subject: "studio", metric: `assets, ${files.size} files (gzip)`, unit: "KiB", samples: [gzipped / 1024] },
];
console.log(formatMachine(machine));
console.log(formatTable(rows));
saveIfAsked("console", machine, rows);

/**
 * The web console end to end in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core), against `serve()` on a free loopback port with a scripted agent over SQLite:
 * sign in, create a task, watch it stream, steer it mid-run and see the steer reach the model with
 * its label, reload mid-run, approve the call shown with its input, reload again and find every
 * stored event exactly once; and the task's trace as a waterfall, live while it waits for the
 * approval and complete once it has ended. Without the browser this says it was skipped and why,
 * unless SEMA_REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, MemoryStore, runLeg, type Store, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { traceTaskJson } from "@sema-agent/otel";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent, writeTool } from "../test-support/api-fixture.ts";
import {
  launchChromium,
  openPage,
  openStudio,
  chromiumPresent as present,
  browserRequired as required,
  routeModules,
  WHY_SKIPPED,
} from "../test-support/studio-browser.ts";

if (!present && !required) console.warn(`console browser tests SKIPPED: ${WHY_SKIPPED}`);

const lookup = defineTool({
  name: "lookup",
  description: "Look something up",
  inputSchema: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => `found ${q}`,
});

const dir = mkdtempSync(join(tmpdir(), "sema-console-"));
let browser: Browser | undefined;
let serving: Serving | undefined;
let store: SqliteStore | undefined;
let tokens: SqliteTokenStore | undefined;
let token = "";

async function start() {
  const path = join(dir, "sema.db");
  store = new SqliteStore({ path });
  tokens = new SqliteTokenStore({ path });
  const agent = scriptedAgent([
    // Slow enough for a person (and this test) to steer while it streams.
    {
      text: "Looking around the notes first, one careful step at a time.",
      chunkSize: 2,
      deltaDelayMs: 40,
      toolCalls: [{ name: "lookup", input: { q: "style" }, callId: "call-look" }],
    },
    { toolCalls: [{ name: "write_note", input: { text: "indent with <b>tabs</b>" }, callId: "call-write" }] },
    { text: "All done." },
  ]);
  agent.tools = [lookup, writeTool];
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ default: agent }),
    port: 0,
    workers: { pollMs: 50 },
  });
  token = (await tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
  browser = await launchChromium();
}

afterAll(async () => {
  await browser?.close();
  await serving?.close({ deadlineMs: 2000 });
  await store?.close();
  await tokens?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The seqs of the log's entries, in page order. */
const loggedSeqs = (page: Page) =>
  page.$$eval("#log > li", (items) => items.map((item) => Number(item.getAttribute("data-seq"))));

async function storedSeqs(taskId: string) {
  return (await store?.read(taskId))?.map((event) => event.seq) ?? [];
}

/** The OTLP/JSON trace of a task whose host died running a tool call, recovered by another host. */
async function crashedTrace(): Promise<string> {
  let now = Date.parse("2026-11-30T10:00:00.000Z");
  const memory = new MemoryStore({ now: () => (now += 10) });
  const fetchPage = defineTool({
    name: "fetch_page",
    description: "fetch a page",
    inputSchema: z.object({ url: z.string() }),
    idempotent: true,
    execute: () => "page",
  });
  const model = new ScriptedModel(
    [{ toolCalls: [{ name: "fetch_page", input: { url: "https://a.example" } }] }, { text: "done" }],
    { mode: "by-transcript" },
  );
  const agent = { model, tools: [fetchPage] };
  const taskId = await startTask(memory, { objective: "Fetch it", agent: "fetcher" });
  // The first host dies instead of storing the call's result, and stays dead.
  let dead = false;
  const dying = new Proxy(memory, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (key === "append" && (args[1] as Parameters<Store["append"]>[1]).some((e) => e.type === "tool_result"))
          dead = true;
        return dead ? Promise.reject(new Error("host died")) : value.apply(target, args);
      };
    },
  });
  await runLeg({ store: dying, agent, holder: { id: "host-1" } }, taskId).catch(() => undefined);
  now += 120_000; // its lease expires
  await runLeg({ store: memory, agent, holder: { id: "host-2" } }, taskId);
  return traceTaskJson(memory, taskId, { env: {} });
}

/**
 * A request whose 404 is expected: the studio asks for the list's stream and the approvals inbox,
 * and falls back to listing on a server without those routes.
 */

/** The digest a decision on `callId` must name, from the task's pending approvals. */
async function digestOf(taskId: string, callId: string): Promise<string> {
  const detail = (await (await api(`/v1/tasks/${taskId}`)).json()) as {
    pendingApprovals: { callId: string; digest: string }[];
  };
  return detail.pendingApprovals.find((pending) => pending.callId === callId)?.digest ?? "";
}

const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${serving?.url}${path}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe.runIf(present || required)("the web console in Chromium", () => {
  beforeAll(async () => {
    if (present) await start();
  }, 60_000);

  it("signs in, creates a task, streams it, takes a steer, an approval and reloads without losing anything", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { page, problems } = await openPage(browser as Browser, serving?.url ?? "");

    // Sign in: a wrong token is refused, the right one opens the workspace.
    await page.fill("#token", "sema_wrong");
    await page.click("#sign-in-form button");
    await page.getByText("That token was not accepted").waitFor();
    expect(await page.locator("#notice").textContent()).toContain("sema token create");
    // Chromium logs that refused request as an error: it was the point of the step, not a problem.
    problems.length = 0;
    await page.fill("#token", token);
    await page.click("#sign-in-form button");
    await page.locator("#workspace").waitFor({ state: "visible" });

    // Create a task and watch it stream.
    await page.fill("#objective", "Tidy the notes");
    await page.click("#create-form button");
    await page.waitForURL(/#task=/);
    const taskId = decodeURIComponent(new URL(page.url()).hash.slice("#task=".length));
    await page.locator("#task-list button", { hasText: "Tidy the notes" }).waitFor();
    // Deltas are live only: those emitted before the stream caught up are not sent (the stored
    // turn is the record), so look for text from the middle of the turn.
    await page.locator('[data-live="text"] .stream-text', { hasText: "around the notes" }).waitFor();

    // Steer it mid-run (Send, while it runs), and see the model receive it with its label: the
    // message once in the conversation, its exact framed bytes one click away.
    await page.getByRole("textbox", { name: "Message" }).fill("Use tabs, not spaces");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const steer = page.locator('.msg.person[data-delivery="applied"]', { hasText: "Use tabs, not spaces" });
    await steer.waitFor();
    expect(await page.locator(".msg.person", { hasText: "Use tabs, not spaces" }).count()).toBe(1);
    expect(await steer.locator(".badge").textContent()).toBe("verified");
    await steer.getByText("Exact bytes the model received").click();
    expect(await steer.locator(".framed pre").textContent()).toContain('[from "dana"]\nUse tabs, not spaces');
    // Received while the leg ran, then applied by that leg: a steer, not a follow-up.
    const steerInputs = page.locator('#log > li[data-type="human_input"]', { hasText: ", steer: " });
    await steerInputs.nth(1).waitFor({ state: "attached" });
    expect(await steerInputs.locator(".title").allTextContents()).toEqual([
      "Input from dana (verified) on the user lane, steer: received",
      "Input from dana (verified) on the user lane, steer: applied",
    ]);
    expect(await page.locator('[data-live="text"]').count()).toBe(0);

    // The write waits for approval: reload mid-run, and the approval is still there, input shown.
    const approval = page.locator('.tool-card .approval[data-call-id="call-write"]');
    await approval.waitFor();
    await page.locator("#task-status", { hasText: "waiting for approval" }).waitFor();
    // Only what applies: a task waiting for a decision is neither interrupted nor resumed.
    expect(await page.locator("#interrupt").isHidden()).toBe(true);
    expect(await page.locator("#resume").isHidden()).toBe(true);
    await page.reload();
    await approval.waitFor();
    expect(await page.locator("#sign-in").isHidden()).toBe(true);
    // The input is text, never markup: the tags in it are shown as typed.
    expect(await approval.locator("pre").first().textContent()).toContain('"text": "indent with <b>tabs</b>"');
    expect(await page.locator(".approval b").count()).toBe(0);
    await approval.getByRole("textbox", { name: "Reason" }).fill("tabs are fine");
    await approval.getByRole("button", { name: "Approve" }).click();

    // It finishes; the page shows every stored event once, in order, and the result on top.
    await page.locator('#log > li[data-type="task_completed"]').waitFor({ state: "attached" });
    await page.locator('.tool-card[data-call-id="call-write"][data-state="ok"]').waitFor({ state: "attached" });
    expect(await page.locator('.tool-card[data-call-id="call-write"]').textContent()).toContain(
      "Approved by dana (verified): tabs are fine",
    );
    await page.locator("#task-status", { hasText: "completed" }).waitFor();
    await page.locator("#result", { hasText: "All done." }).waitFor();
    expect(await loggedSeqs(page)).toEqual(await storedSeqs(taskId));
    expect(await page.locator("#task-usage").textContent()).toMatch(/[\d,]+ in \/ [\d,]+ out tokens/);
    // Each message once: the objective, the steer, and the assistant's three turns.
    expect(await page.locator(".msg.person").count()).toBe(2);
    expect(await page.locator(".msg.assistant").count()).toBe(3);
    // Finished: nothing to interrupt, resume or cancel; Send continues it.
    for (const id of ["#interrupt", "#resume", "#cancel", "#queue"])
      expect(await page.locator(id).isHidden(), id).toBe(true);
    expect(await page.locator("#send-hint").textContent()).toContain("continues");

    // The timeline: two legs (the second resumed after the approval), turns and tools with durations.
    const legs = page.locator("#timeline > li");
    expect(await legs.count()).toBe(2);
    expect(await legs.nth(0).textContent()).toMatch(/^Leg 1 \(start → parked:approval\): [\d.]+ m?s/);
    expect(await legs.nth(0).locator('li[data-kind="tool"]').first().textContent()).toMatch(/Tool lookup: ok — \d+ ms/);
    expect(await page.locator('#timeline li[data-kind="wait"]').textContent()).toContain("approved by dana");
    expect(await page.locator('#timeline li[data-kind="turn"]').count()).toBe(3);

    // Reload once more: the same log, nothing lost and nothing repeated, and the stream ended.
    await page.reload();
    await page.locator('#log > li[data-type="task_completed"]').waitFor({ state: "attached" });
    await page.locator("#stream-state", { hasText: "ended" }).waitFor();
    expect(await loggedSeqs(page)).toEqual(await storedSeqs(taskId));

    // Signing out forgets the token.
    await page.click("#sign-out");
    expect(await page.evaluate(() => sessionStorage.getItem("sema.token"))).toBeNull();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows the images a task's inputs carried, fetched with the token; files stay labels", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    // A 1×1 PNG, and a PDF that is only ever named.
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const created = await fetch(`${serving?.url}/v1/tasks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        objective: [
          { type: "text", text: "Look at this" },
          { type: "image", data: png, mediaType: "image/png" },
          { type: "file", data: "JVBERi0=", mediaType: "application/pdf", filename: "a.pdf" },
        ],
      }),
    });
    expect(created.status).toBe(201);
    const { taskId } = (await created.json()) as { taskId: string };
    const { page, problems } = await openStudio(
      browser as Browser,
      serving?.url ?? "",
      token,
      `#task=${encodeURIComponent(taskId)}`,
    );
    const image = page.locator(".msg.person img.attachment").first();
    await image.waitFor();
    // Decoded by the browser from the object URL: a real image of the real bytes. Polled through
    // the protocol (locator.evaluate): a string predicate of waitForFunction is eval'd in the
    // page on each poll after the first, which the console's CSP (no unsafe-eval) refuses, so it
    // failed whenever the image was not decoded at the first look.
    await expect
      .poll(
        () =>
          image.evaluate((img) => {
            const decoded = img as unknown as { complete: boolean; naturalWidth: number };
            return decoded.complete && decoded.naturalWidth === 1;
          }),
        { timeout: 10_000 },
      )
      .toBe(true);
    expect(await image.getAttribute("src")).toMatch(/^blob:/);
    await page
      .locator(".msg.person .attachments li", {
        hasText: "File (application/pdf, 5 bytes, a.pdf)",
      })
      .waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("shows the task's trace as a waterfall: nested spans on a time axis, events as ticks, attributes on a click", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const created = await api("/v1/tasks", { method: "POST", body: { objective: "Tidy the notes, traced" } });
    const { taskId } = (await created.json()) as { taskId: string };
    // The view is in the link: a reload or a shared URL opens the trace again.
    const { page, problems } = await openStudio(
      browser as Browser,
      serving?.url ?? "",
      token,
      `#task=${encodeURIComponent(taskId)}&view=trace`,
    );
    await page.locator("#trace-view").waitFor({ state: "visible" });
    expect(await page.locator("#activity").isHidden()).toBe(true);
    expect(await page.getAttribute("#view-trace", "aria-selected")).toBe("true");

    // While it waits for the approval, the trace is drawn as far as the log goes, the task still open.
    await page.locator(`.tool-card .approval[data-task-id="${taskId}"]`).waitFor({ state: "attached" });
    const rows = page.locator("#waterfall .wf-row");
    await page.locator('.wf-row[data-kind="tool"]', { hasText: "execute_tool lookup" }).waitFor();
    await page.locator('.wf-row[data-kind="leg"] .wf-tick[data-event="sema.approval.requested"]').waitFor();
    const root = page.locator('.wf-row[data-kind="agent"]');
    expect(await root.getAttribute("data-open")).toBe("true");
    expect(await root.locator(".wf-mark").allTextContents()).toEqual(["open"]);

    // Approved from the inbox: the view follows the log to the end, two legs now.
    await api(`/v1/tasks/${taskId}/approvals/call-write`, {
      method: "POST",
      body: { decision: "approve", digest: await digestOf(taskId, "call-write") },
    });
    await page.locator("#task-status", { hasText: "completed" }).waitFor();
    await page.locator('.wf-row[data-kind="leg"]').nth(1).waitFor();
    await page.locator('.wf-row[data-kind="agent"]:not([data-open])').waitFor();

    // Every span of the API's trace is a row, nested by parent: the task, its legs, their calls.
    const trace = (await (await api(`/v1/tasks/${taskId}/trace`)).json()) as {
      resourceSpans: { scopeSpans: { spans: { spanId: string; name: string }[] }[] }[];
    };
    const spans = trace.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const shown = await rows.evaluateAll((items) =>
      items.map((item) => ({
        id: item.getAttribute("data-span-id"),
        name: item.querySelector(".wf-name")?.textContent,
        kind: item.getAttribute("data-kind"),
        depth: Number(item.getAttribute("data-depth")),
      })),
    );
    expect(shown.map((row) => row.id).sort()).toEqual(spans.map((span) => span.spanId).sort());
    expect(shown.map((row) => [row.kind, row.depth])).toEqual([
      ["agent", 0],
      ["leg", 1],
      ["chat", 2],
      ["tool", 2],
      ["chat", 2],
      ["leg", 1],
      ["tool", 2],
      ["chat", 2],
    ]);
    expect(shown.filter((row) => row.kind === "tool").map((row) => row.name)).toEqual([
      "execute_tool lookup",
      "execute_tool write_note",
    ]);

    // On one time axis: the task's bar spans the track, each leg's lies inside it, in order.
    const box = async (row: number, part: string) => {
      const found = await rows.nth(row).locator(part).boundingBox();
      if (found === null) throw new Error(`row ${row} has no ${part}`);
      return found;
    };
    const track = await box(0, ".wf-track");
    const task = await box(0, ".wf-bar");
    expect(Math.abs(task.x - track.x)).toBeLessThan(2);
    expect(Math.abs(task.width - track.width)).toBeLessThan(2);
    const [leg1, leg2] = [await box(1, ".wf-bar"), await box(5, ".wf-bar")];
    // (Within 2 px: the layout rounds each bar's percentages to its own sub-pixels.)
    expect(leg1.x).toBeGreaterThanOrEqual(task.x - 2);
    expect(leg1.x + leg1.width).toBeLessThanOrEqual(leg2.x + 2);
    expect(leg2.x + leg2.width).toBeLessThanOrEqual(task.x + task.width + 2);
    // The approval decided while parked is a tick on the task, where it happened: between the legs.
    const decided = await rows.nth(0).locator('.wf-tick[data-event="sema.approval.decided"]').boundingBox();
    expect(decided?.x).toBeGreaterThanOrEqual(leg1.x + leg1.width - 2);
    expect(decided?.x).toBeLessThanOrEqual(leg2.x + 2);
    // The axis: round steps from 0 across the trace (3 to 5 of them).
    const scale = await page.locator("#waterfall .wf-scale-tick").allTextContents();
    expect(scale[0]).toBe("0");
    expect(scale.length).toBeGreaterThanOrEqual(3);
    expect(scale.length).toBeLessThanOrEqual(6);

    // A click shows the span's attributes: who approved the write.
    await page.locator(".wf-row", { hasText: "execute_tool write_note" }).locator(".wf-label").click();
    const detail = page.locator("#span-detail");
    await detail.waitFor({ state: "visible" });
    expect(await detail.locator("h4").textContent()).toBe("execute_tool write_note");
    expect(await detail.locator('tr[data-key="sema.approval.decision"] td').textContent()).toBe("approve");
    expect(await detail.locator('tr[data-key="sema.approval.actor.id"] td').textContent()).toBe("dana");
    expect(await detail.locator('tr[data-key="gen_ai.tool.call.id"] td').textContent()).toBe("call-write");
    expect(await page.locator('.wf-row[aria-current="true"] .wf-name').textContent()).toBe("execute_tool write_note");

    // The other view is one click away, and back.
    await page.click("#view-activity");
    await page.locator("#activity").waitFor({ state: "visible" });
    expect(await page.locator("#trace-view").isHidden()).toBe(true);
    expect(new URL(page.url()).hash).toBe(`#task=${encodeURIComponent(taskId)}&view=activity`);
    await page.click("#view-trace");
    await page.locator("#trace-view").waitFor({ state: "visible" });

    // A crashed and recovered task: the lost leg is an error, the call it ran is in doubt.
    const crashed = await crashedTrace();
    // The page has the bundle only; the waterfall's own module is driven here, from its source.
    await routeModules(page);
    type Mark = { name: string; status: string; inDoubt: boolean; marks: string[] };
    // A string, not a function: vitest would rewrite a function's import() for Node.
    const marks = await page.evaluate<Mark[]>(`(async (json) => {
      const { parseTrace, renderWaterfall } = await import("/console/src/trace.js");
      const { el } = await import("/console/src/task-log.js");
      const container = document.createElement("div");
      renderWaterfall(container, parseTrace(JSON.parse(json)), { el, onSelect: () => undefined });
      return [...container.querySelectorAll(".wf-row")].map((row) => ({
        name: row.querySelector(".wf-name").textContent,
        status: row.getAttribute("data-status"),
        inDoubt: row.hasAttribute("data-in-doubt"),
        marks: [...row.querySelectorAll(".wf-mark")].map((mark) => mark.textContent),
      }));
    })(${JSON.stringify(crashed)})`);
    const legs = marks.filter((row) => row.name === "sema.leg");
    expect(legs.map((row) => [row.status, row.marks])).toEqual([
      ["error", ["parked:crash"]],
      ["unset", []],
    ]);
    expect(marks.filter((row) => row.name === "execute_tool fetch_page")).toEqual([
      { name: "execute_tool fetch_page", status: "error", inDoubt: true, marks: ["in doubt"] },
      { name: "execute_tool fetch_page", status: "unset", inDoubt: false, marks: [] },
    ]);
    expect(problems).toEqual([]);
  }, 60_000);
});

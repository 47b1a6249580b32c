/**
 * The web console end to end in real headless Chromium (Debian's `chromium`, driven by
 * playwright-core), against `serve()` on a free loopback port with a scripted agent over SQLite:
 * sign in, create a task, watch it stream, steer it mid-run and see the steer reach the model with
 * its label, reload mid-run, approve the call shown with its input, reload again and find every
 * stored event exactly once. Without the browser this says it was skipped and why, unless
 * SEMA_REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool } from "@sema-agent/core";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../serve.ts";
import { scriptedAgent, writeTool } from "../test-support/api-fixture.ts";

/** Debian's browser; SEMA_CHROMIUM names another binary (or a missing one, to see the skip). */
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
const required = process.env.SEMA_REQUIRE_BROWSER === "1";
const WHY_SKIPPED = `${CHROMIUM} is missing (install it with \`apt-get install -y chromium\`; SEMA_REQUIRE_BROWSER=1 makes this a failure)`;

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
    store,
    tokens,
    agents: createAgentRegistry({ default: agent }),
    port: 0,
    workers: { pollMs: 50 },
  });
  token = (await tokens.create({ principal: "local", actorId: "dana", roles: ["approver"] })).token;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
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

describe.runIf(present || required)("the web console in Chromium", () => {
  beforeAll(async () => {
    if (present) await start();
  }, 60_000);

  it("signs in, creates a task, streams it, takes a steer, an approval and reloads without losing anything", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const page = await (browser as Browser).newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      // Chromium asks for /favicon.ico on its own; the API answers 404 and that is fine.
      if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico")) problems.push(message.text());
    });
    await page.goto(`${serving?.url}/`);

    // Sign in: a wrong token is refused, the right one opens the workspace.
    await page.fill("#token", "sema_wrong");
    await page.click("#sign-in-form button");
    await page.getByText("That token was not accepted.").waitFor();
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
    await page.locator('[data-live="text"] pre', { hasText: "around the notes" }).waitFor();

    // Steer it mid-run, and see the model receive it with its label.
    await page.fill("#input-text", "Use tabs, not spaces");
    await page.click('button[data-action="steer"]');
    const steered = page.locator('#log > li[data-type="user_message"] pre', { hasText: "Use tabs, not spaces" });
    await steered.waitFor();
    expect(await steered.textContent()).toContain('[from "dana"]\nUse tabs, not spaces');
    // Received while the leg ran, then applied by that leg: a steer, not a follow-up.
    const steerInputs = page.locator('#log > li[data-type="human_input"]', { hasText: ", steer: " });
    await steerInputs.nth(1).waitFor();
    expect(await steerInputs.locator(".title").allTextContents()).toEqual([
      "Input from dana (verified) on the user lane, steer: received",
      "Input from dana (verified) on the user lane, steer: applied",
    ]);
    expect(await page.locator('[data-live="text"]').count()).toBe(0);

    // The write waits for approval: reload mid-run, and the approval is still there, input shown.
    const approval = page.locator('#approval-list li[data-call-id="call-write"]');
    await approval.waitFor();
    await page.reload();
    await approval.waitFor();
    expect(await page.locator("#sign-in").isHidden()).toBe(true);
    // The input is text, never markup: the tags in it are shown as typed.
    expect(await approval.locator("pre").textContent()).toContain('"text": "indent with <b>tabs</b>"');
    expect(await page.locator("#approval-list b").count()).toBe(0);
    await approval.getByRole("button", { name: "Approve" }).click();

    // It finishes; the page shows every stored event once, in order.
    await page.locator('#log > li[data-type="task_completed"]').waitFor();
    await page.locator("#approvals").waitFor({ state: "hidden" });
    await page.locator("#task-status", { hasText: "completed" }).waitFor();
    expect(await loggedSeqs(page)).toEqual(await storedSeqs(taskId));
    expect(await page.locator("#task-usage").textContent()).toMatch(/\d+ in \/ \d+ out tokens/);

    // The timeline: two legs (the second resumed after the approval), turns and tools with durations.
    const legs = page.locator("#timeline > li");
    expect(await legs.count()).toBe(2);
    expect(await legs.nth(0).textContent()).toMatch(/^Leg 1 \(start → parked:approval\): [\d.]+ m?s/);
    expect(await legs.nth(0).locator('li[data-kind="tool"]').first().textContent()).toMatch(/Tool lookup: ok — \d+ ms/);
    expect(await page.locator('#timeline li[data-kind="wait"]').textContent()).toContain("approved by dana");
    expect(await page.locator('#timeline li[data-kind="turn"]').count()).toBe(3);

    // Reload once more: the same log, nothing lost and nothing repeated, and the stream ended.
    await page.reload();
    await page.locator('#log > li[data-type="task_completed"]').waitFor();
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
    const page = await (browser as Browser).newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    await page.goto(`${serving?.url}/#task=${encodeURIComponent(taskId)}`);
    await page.fill("#token", token);
    await page.click("#sign-in-form button");
    const image = page.locator('#log > li[data-type="human_input"] img.attachment').first();
    await image.waitFor();
    // Decoded by the browser from the object URL: a real image of the real bytes.
    await page.waitForFunction(
      `(() => { const img = document.querySelector('#log > li[data-type="human_input"] img.attachment'); return img !== null && img.complete && img.naturalWidth === 1; })()`,
    );
    expect(await image.getAttribute("src")).toMatch(/^blob:/);
    await page
      .locator('#log > li[data-type="human_input"] .attachments li', {
        hasText: "File (application/pdf, 5 bytes, a.pdf)",
      })
      .waitFor();
    expect(problems).toEqual([]);
  }, 60_000);
});

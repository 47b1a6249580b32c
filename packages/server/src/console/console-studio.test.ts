/**
 * The studio's flows end to end in real headless Chromium against `serve()` on loopback (as
 * console-browser.test.ts): continuing a finished conversation by keyboard alone, a reload while
 * the answer streams with nothing lost or repeated, an approval from the inbox for a task the page
 * was not showing ("always for this task"), a fork from a step, a revoked token, the live region
 * hearing whole messages only, accessible names and landmarks, and axe-core on each main view with
 * no serious or critical violation. Polls with deadlines, never fixed sleeps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { allProtocols } from "../test-support/all-protocols.ts";
import { scriptedAgent } from "../test-support/api-fixture.ts";
import {
  axeSerious as axe,
  axeContext,
  launchChromium,
  openPage,
  openStudio,
  chromiumPresent as present,
  browserRequired as required,
  WHY_SKIPPED,
} from "../test-support/studio-browser.ts";

if (!present && !required) console.warn(`studio browser tests SKIPPED: ${WHY_SKIPPED}`);

const dir = mkdtempSync(join(tmpdir(), "sema-studio-"));
let browser: Browser | undefined;
let serving: Serving | undefined;
let store: SqliteStore | undefined;
let tokens: SqliteTokenStore | undefined;
let token = "";

const FIRST = "Here is the **plan**:\n\n1. Read the notes\n2. Write the summary\n\nSee <https://example.com/plan>.";
const SECOND = "Continued: the retro is on Monday.";

async function start() {
  const path = join(dir, "sema.db");
  store = new SqliteStore({ path });
  tokens = new SqliteTokenStore({ path });
  // `chat` answers slowly enough to reload mid-stream, then answers a follow-up; `writer` asks to
  // write (an approval) and then says it is done.
  const chat = scriptedAgent([{ text: FIRST, chunkSize: 3, deltaDelayMs: 30 }, { text: SECOND }], "chat");
  chat.tools = [];
  const writer = scriptedAgent(
    [{ toolCalls: [{ name: "write_note", input: { text: "release notes" }, callId: "call-w" }] }, { text: "Written." }],
    "writer",
  );
  serving = await serve({
    protocols: allProtocols(),
    store,
    tokens,
    agents: createAgentRegistry({ chat, writer }, "chat"),
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

const api = async <T = Record<string, unknown>>(path: string, body?: unknown, as = token): Promise<T> => {
  const response = await fetch(`${serving?.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${as}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
};

type Detail = { status: string; parkedReason?: string; forkedFrom?: { taskId: string; seq: number } };
/** Polls the task until `check` holds, for at most ten seconds. */
async function until(taskId: string, check: (detail: Detail) => boolean) {
  await expect.poll(async () => check(await api<Detail>(`/v1/tasks/${taskId}`)), { timeout: 10_000 }).toBe(true);
}

/**
 * Runs `act` (which makes a task and returns its id) with a list stream of this token's open, and
 * returns once that stream has told of the task: the list feed has sent the task's change notice
 * to every stream open then, so a stream opened later never gets it.
 */
async function streamTellsOf(act: () => Promise<string>): Promise<string> {
  const abort = new AbortController();
  const response = await fetch(`${serving?.url}/v1/tasks/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    signal: abort.signal,
  });
  // Subscribed once the headers are here (the stream starts from then).
  expect(response.status).toBe(200);
  try {
    const taskId = await act();
    // No timer of its own: the test's timeout is the deadline, and the stream ending (the server
    // closed it) is the other way out.
    let seen = "";
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) {
      seen += decoder.decode(chunk, { stream: true });
      if (seen.includes(`"taskId":"${taskId}"`)) return taskId;
    }
    throw new Error(`the list stream ended without telling of ${taskId}`);
  } finally {
    abort.abort();
  }
}

/** The studio signed in (as `as`), with the errors it logs. */
const open = (context: BrowserContext | Browser, hash = "", as = token) =>
  openStudio(context, serving?.url ?? "", as, hash);

/** The page's globals the checks below read (this file is compiled without the DOM's types). */
interface PageNode {
  id?: string;
  dataset?: Record<string, string | undefined>;
  textContent: string | null;
}
type PageGlobals = {
  document: { activeElement: PageNode | null; getElementById(id: string): PageNode | null };
  MutationObserver: new (callback: () => void) => { observe(node: PageNode, options: Record<string, boolean>): void };
  heard: string[];
};

const storedSeqs = async (taskId: string) => (await store?.read(taskId))?.map((event) => event.seq) ?? [];
const loggedSeqs = (page: Page) =>
  page.$$eval("#log > li", (items) => items.map((item) => Number(item.getAttribute("data-seq"))));

describe.runIf(present || required)("the studio in Chromium", () => {
  beforeAll(async () => {
    if (present) await start();
  }, 60_000);

  it("continues a finished conversation, by keyboard alone, and the live region hears whole messages", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { taskId } = await api<{ taskId: string }>("/v1/tasks", { objective: "Plan the release", agent: "chat" });
    await until(taskId, (detail) => detail.status === "completed");
    const { page, problems } = await openPage(browser as Browser, serving?.url ?? "");
    // Sign in, open the task and continue it with the keyboard only.
    await page.keyboard.press("Tab");
    for (
      let tabs = 0;
      tabs < 10 &&
      !(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id === "token"));
      tabs += 1
    )
      await page.keyboard.press("Tab");
    await page.keyboard.type(token);
    await page.keyboard.press("Enter");
    const row = page.locator(`.task-row[data-task-id="${taskId}"]`);
    await row.waitFor();
    const focusedRow = () =>
      page.evaluate(
        (id) => (globalThis as unknown as PageGlobals).document.activeElement?.dataset?.taskId === id,
        taskId,
      );
    for (let tabs = 0; tabs < 40 && !(await focusedRow()); tabs += 1) await page.keyboard.press("Tab");
    expect(await focusedRow()).toBe(true);
    await page.keyboard.press("Enter");
    await page.locator("#result", { hasText: "Read the notes" }).waitFor();
    // The first answer as Markdown: a list and a safe link, no raw markup.
    const answer = page.locator(".msg.assistant").first();
    expect(await answer.locator("strong").textContent()).toBe("plan");
    expect(await answer.locator("ol > li").allTextContents()).toEqual(["Read the notes", "Write the summary"]);
    expect(await answer.locator("a").getAttribute("rel")).toBe("noopener noreferrer");
    // Record what the live region says from here on.
    await page.evaluate(() => {
      const page = globalThis as unknown as PageGlobals;
      const heard: string[] = [];
      page.heard = heard;
      const region = page.document.getElementById("announce");
      if (region !== null)
        new page.MutationObserver(() => heard.push(region.textContent ?? "")).observe(region, {
          childList: true,
          characterData: true,
          subtree: true,
        });
    });
    const focusedBox = () =>
      page.evaluate(() => (globalThis as unknown as PageGlobals).document.activeElement?.id === "input-text");
    for (let tabs = 0; tabs < 40 && !(await focusedBox()); tabs += 1) await page.keyboard.press("Tab");
    expect(await focusedBox()).toBe(true);
    await page.keyboard.type("When is the retro?");
    await page.keyboard.press("Enter");
    await page.locator(".msg.assistant", { hasText: SECOND }).waitFor();
    await page.locator("#result", { hasText: SECOND }).waitFor();
    await until(taskId, (detail) => detail.status === "completed");
    expect(await page.locator(".msg.person", { hasText: "When is the retro?" }).count()).toBe(1);
    const heard = await page.evaluate(() => (globalThis as unknown as PageGlobals).heard);
    expect(heard.filter((text) => text !== "")).toEqual([`Assistant: ${SECOND}`]);
    expect(problems).toEqual([]);
  }, 60_000);

  it("loses nothing and repeats nothing when reloaded while the answer streams", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { page, problems } = await open(browser as Browser);
    await page.getByLabel("New task").fill("Plan the release again");
    await page.getByRole("button", { name: "Create task" }).click();
    await page.waitForURL(/#task=/);
    const taskId = decodeURIComponent(new URL(page.url()).hash.slice("#task=".length));
    await page.locator('[data-live="text"] .stream-text', { hasText: "plan" }).waitFor();
    await page.reload();
    await page.locator("#result", { hasText: "Write the summary" }).waitFor();
    await page.locator("#stream-state", { hasText: "ended" }).waitFor();
    expect(await loggedSeqs(page)).toEqual(await storedSeqs(taskId));
    expect(await page.locator(".msg.assistant").count()).toBe(1);
    expect(await page.locator(".msg.person").count()).toBe(1);
    expect(await page.locator("[data-live]").count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it("approves from the inbox a call of a task the page was not showing, for the rest of that task", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { page, problems } = await open(browser as Browser);
    const { taskId } = await api<{ taskId: string }>("/v1/tasks", {
      objective: "Write the release notes",
      agent: "writer",
    });
    await until(taskId, (detail) => detail.parkedReason === "approval");
    // Landmarks and names: the sections, the task list, where the task created over the API
    // appeared by itself (the list follows GET /v1/tasks/stream), waiting for approval.
    await page.getByRole("navigation", { name: "Tasks" }).waitFor();
    expect(await page.locator("#list-state").textContent()).toContain("Live");
    await page.locator(`.task-row[data-task-id="${taskId}"] .status[data-status="approval"]`).waitFor();
    await page.getByRole("link", { name: /Approvals/ }).click();
    const region = page.getByRole("region", { name: "Approvals" });
    await region.waitFor();
    const card = region.locator(`.inbox-item[data-task-id="${taskId}"]`);
    await card.waitFor();
    expect(await card.locator("pre").textContent()).toContain('"text": "release notes"');
    await card.getByRole("textbox", { name: "Reason" }).fill("notes are fine");
    await card.getByRole("checkbox", { name: "Always for this task" }).check();
    // Another call comes to wait while the reason is typed: the inbox looks again and must keep
    // what was typed on the card that is still waiting.
    const other = await api<{ taskId: string }>("/v1/tasks", { objective: "Write more notes", agent: "writer" });
    await region.locator(`.inbox-item[data-task-id="${other.taskId}"]`).waitFor();
    expect(await card.getByRole("textbox", { name: "Reason" }).inputValue()).toBe("notes are fine");
    await card.getByRole("button", { name: "Approve" }).click();
    await until(taskId, (detail) => detail.status === "completed");
    const events = (await store?.read(taskId)) ?? [];
    expect(events.find((event) => event.type === "approval_decided")).toMatchObject({
      decision: "approve",
      scope: "tool-for-task",
      reason: "notes are fine",
      actor: { id: "dana", verified: true },
    });
    await expect.poll(() => card.count(), { timeout: 10_000 }).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it("forks from a step: the fork opens, says where it came from, and the source lists it", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { taskId } = await api<{ taskId: string }>("/v1/tasks", { objective: "Plan a fork", agent: "chat" });
    await until(taskId, (detail) => detail.status === "completed");
    const { page, problems } = await open(browser as Browser, `#task=${encodeURIComponent(taskId)}`);
    const objective = page.locator(".msg.person").first();
    await objective.waitFor();
    const seq = Number(await objective.getAttribute("data-seq"));
    await objective.getByRole("button", { name: "Fork from here" }).click();
    await expect
      .poll(() => decodeURIComponent(new URL(page.url()).hash), { timeout: 10_000 })
      .not.toBe(`#task=${taskId}`);
    const forkId = decodeURIComponent(new URL(page.url()).hash.slice("#task=".length));
    await page.locator("#lineage", { hasText: `Forked from ${taskId} at event ${seq}` }).waitFor();
    expect((await api<Detail>(`/v1/tasks/${forkId}`)).forkedFrom).toMatchObject({ taskId, seq });
    await page.getByRole("link", { name: `Forked from ${taskId} at event ${seq}` }).click();
    await page.locator("#lineage a", { hasText: `Fork ${forkId}` }).waitFor();
    // In the list, the fork hangs under its source.
    await page.locator(`#task-list li[data-task-id="${taskId}"] ul li[data-task-id="${forkId}"]`).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("nests a child under its parent when only roots are listed (Children (n) loads them), and a fork under its source", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { taskId: parent } = await api<{ taskId: string }>("/v1/tasks", {
      objective: "Plan the offsite",
      agent: "chat",
    });
    await until(parent, (detail) => detail.status === "completed");
    // A child as a parent's tool call writes it: its parent named on its task_created. Its change
    // notice reaches the list streams open then (a page left open by an earlier test) a moment
    // later; waited for here, so it cannot instead reach the page opened below, which would then
    // show the child before anyone asked for it.
    const childId = await streamTellsOf(async () => {
      const [child] = await (store as SqliteStore).createTask({
        created: { type: "task_created", v: 1, objective: "Book the venue", principal: "local", parentTaskId: parent },
      });
      return child?.taskId ?? "";
    });
    const forked = await api<{ taskId: string }>(`/v1/tasks/${parent}/fork`, { atSeq: 2 });
    const { page, problems } = await open(browser as Browser);
    const parentRow = page.locator(`li[data-task-id="${parent}"]`);
    await parentRow.locator(":scope > .task-row").waitFor();
    // Only roots are listed: the fork (a root) under its source, the child not loaded yet.
    await parentRow.locator(`:scope > ul > li[data-task-id="${forked.taskId}"]`).waitFor();
    expect(await page.locator(`.task-row[data-task-id="${childId}"]`).count()).toBe(0);
    const toggle = parentRow.locator(":scope > .tree-toggle");
    // The toggle only where there are children, with their count; a fork is not a child.
    expect(await toggle.getAttribute("aria-label")).toBe("Children (1) of Plan the offsite");
    expect(await toggle.textContent()).toBe("Children (1)");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    const forkRow = parentRow.locator(`:scope > ul > li[data-task-id="${forked.taskId}"]`);
    expect(await forkRow.locator(":scope > .tree-toggle").count()).toBe(0);
    // Hidden, then shown again with its children loaded: the child under its parent.
    await toggle.click();
    await expect.poll(() => toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await parentRow.locator(":scope > ul").count()).toBe(0);
    await toggle.click();
    const childRow = parentRow.locator(`:scope > ul > li[data-task-id="${childId}"]`);
    await childRow.waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await childRow.textContent()).toContain("Book the venue");
    expect(await childRow.locator(":scope > .tree-toggle").count()).toBe(0);
    // A search lists what matches at any depth.
    await page.getByLabel("Search").fill("venue");
    await page.locator(`#task-list > li[data-task-id="${childId}"]`).waitFor();
    expect(await page.locator(`.task-row[data-task-id="${parent}"]`).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("says a revoked token was refused, and how to get another", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const created = await (tokens as SqliteTokenStore).create({ principal: "local", actorId: "erin" });
    const { page } = await open(browser as Browser, "", created.token);
    await page.locator("#list-state", { hasText: "Live" }).waitFor();
    // The server closes the list's stream on revocation (token_revoked): the page signs out by itself.
    await (tokens as SqliteTokenStore).revoke(created.token);
    await page.locator("#sign-in").waitFor({ state: "visible" });
    expect(await page.getByRole("alert").textContent()).toMatch(/expired or was revoked.*sema token create/);
    expect(await page.evaluate(() => sessionStorage.getItem("sema.token"))).toBeNull();
  }, 60_000);

  it("has no serious or critical accessibility violation on any main view, light or dark", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { taskId } = await api<{ taskId: string }>("/v1/tasks", { objective: "Plan for axe", agent: "chat" });
    await until(taskId, (detail) => detail.status === "completed");
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await axeContext(browser as Browser, colorScheme);
      const { page } = await open(context);
      expect(await axe(page), `sign-in done, ${colorScheme}`).toEqual([]);
      await page.goto(`${serving?.url}/#task=${encodeURIComponent(taskId)}`);
      await page.getByRole("region", { name: "Conversation" }).locator(".msg.assistant").waitFor();
      expect(await axe(page), `conversation, ${colorScheme}`).toEqual([]);
      await page.getByRole("tab", { name: "Activity" }).click();
      await page.locator("#timeline > li").first().waitFor();
      expect(await axe(page), `activity, ${colorScheme}`).toEqual([]);
      await page.getByRole("tab", { name: "Trace" }).click();
      await page.locator(".wf-row").first().waitFor();
      expect(await axe(page), `trace, ${colorScheme}`).toEqual([]);
      await page.getByRole("link", { name: /Approvals/ }).click();
      await page.getByRole("region", { name: "Approvals" }).waitFor();
      expect(await axe(page), `approvals, ${colorScheme}`).toEqual([]);
      await page.getByRole("link", { name: "Agents" }).click();
      await page.getByRole("region", { name: "Agents" }).waitFor();
      expect(await axe(page), `agents, ${colorScheme}`).toEqual([]);
      await context.close();
    }
  }, 120_000);
});

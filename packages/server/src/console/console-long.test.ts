/**
 * A long task in the studio, in real headless Chromium against `serve()` on loopback: the page
 * draws only what is near the viewport (window-list.js), yet scrolling through the whole
 * conversation shows every message once and in order, scrolling to the top shows the first message
 * again, a new message at the bottom appears, the live region still hears whole messages, and axe
 * finds nothing serious in light or dark. Polls with deadlines, never fixed sleeps.
 */
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { lookupTool, lookupTurns, ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry } from "@sema-agent/worker";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryTokenStore } from "../ingress/memory-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import {
  axeSerious as axe,
  axeContext,
  launchChromium,
  openStudio,
  chromiumPresent as present,
  browserRequired as required,
  WHY_SKIPPED,
} from "../test-support/studio-browser.ts";
import { webConsole } from "./console-protocol.ts";

if (!present && !required) console.warn(`studio browser tests SKIPPED: ${WHY_SKIPPED}`);

/** Turns of the long task: each a lookup (a model turn, a call, a result, their framing), then "Done.". */
const TURNS = 600;
const LAST = "Appended at the very end.";

let browser: Browser | undefined;
let serving: Serving | undefined;
let store: MemoryStore | undefined;
let token = "";
let taskId = "";
let lastSeq = 0;

/** The page's globals the checks below read (this file is compiled without the DOM's types). */
interface PageNode {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  getBoundingClientRect(): { top: number; bottom: number };
}
type PageGlobals = {
  document: {
    documentElement: { scrollHeight: number };
    getElementById(id: string): PageNode | null;
    querySelectorAll(selector: string): Iterable<PageNode>;
  };
  innerHeight: number;
  scrollY: number;
  scrollTo(x: number, y: number): void;
  requestAnimationFrame(callback: () => void): void;
  MutationObserver: new (callback: () => void) => { observe(node: PageNode, options: Record<string, boolean>): void };
  heard: string[];
};

async function start() {
  store = new MemoryStore();
  // The long leg, then one more answer when a person writes again.
  const agent = {
    model: new ScriptedModel([...lookupTurns(TURNS), { text: LAST }]),
    tools: [lookupTool],
  };
  taskId = await startTask(store, { objective: "Look every key up", principal: "local" });
  await runLeg({ store, agent }, taskId);
  lastSeq = (await store.read(taskId)).at(-1)?.seq ?? 0;
  const tokens = new MemoryTokenStore();
  token = (await tokens.create({ principal: "local", actorId: "dana" })).token;
  serving = await serve({
    protocols: [webConsole()],
    store,
    tokens,
    agents: createAgentRegistry({ default: agent }),
    port: 0,
    workers: { pollMs: 50 },
  });
  browser = await launchChromium();
}

afterAll(async () => {
  await browser?.close();
  await serving?.close({ deadlineMs: 2000 });
});

/** The conversation's items drawn now: their keys, in page order. */
const drawnKeys = (page: Page) =>
  page.evaluate(() =>
    [...(globalThis as unknown as PageGlobals).document.querySelectorAll("#conversation-list > [data-key]")].map(
      (node) => node.dataset.key ?? "",
    ),
  );

/** Scroll the page to `y` and let the page draw what came into view (two frames). */
const scrollTo = (page: Page, y: number) =>
  page.evaluate(async (to) => {
    const page = globalThis as unknown as PageGlobals;
    page.scrollTo(0, to);
    for (let frame = 0; frame < 2; frame += 1) await new Promise<void>((done) => page.requestAnimationFrame(done));
    return page.scrollY;
  }, y);

const bottom = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollHeight);

describe.runIf(present || required)("a long task in the studio", () => {
  beforeAll(async () => {
    if (present) await start();
  }, 120_000);

  it("draws only what is near the viewport, and scrolling shows every message once, in order", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { page, problems } = await openStudio(browser as Browser, serving?.url ?? "", token, `#task=${taskId}`);
    await page.locator(`#task[data-seq="${lastSeq}"]`).waitFor({ state: "attached", timeout: 30_000 });
    await page.locator("#result", { hasText: "Done." }).waitFor();
    // The objective (the first message) on top; far fewer elements than the conversation's 1,201 items.
    await page.locator('.msg.person[data-key="objective"]', { hasText: "Look every key up" }).waitFor();
    expect((await drawnKeys(page)).length).toBeLessThan(400);

    // Down the whole conversation a screen at a time: each item drawn is new, in order, and at
    // no point is one drawn twice; at the end every one has been seen.
    const seen: string[] = [];
    const height = await page.evaluate(() => (globalThis as unknown as PageGlobals).innerHeight);
    for (let y = 0, steps = 0; steps < 2000; steps += 1) {
      const drawn = await drawnKeys(page);
      expect(new Set(drawn).size, "an item drawn twice").toBe(drawn.length);
      for (const key of drawn) if (!seen.includes(key)) seen.push(key);
      if (y >= (await bottom(page)) - height) break;
      y = await scrollTo(page, y + height);
    }
    const turnKeys = seen.filter((key) => key.startsWith("turn:"));
    expect(turnKeys).toHaveLength(TURNS);
    expect(seen.filter((key) => key.startsWith("call:"))).toHaveLength(TURNS - 1);
    expect(seen[0]).toBe("objective");
    // In order: the turns by their seq.
    const seqs = turnKeys.map((key) => Number(key.slice("turn:".length)));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await page.locator(".msg.assistant", { hasText: "Done." }).waitFor();
    // At the end the beginning is no longer drawn ...
    expect(await page.locator('.msg.person[data-key="objective"]').count()).toBe(0);

    // ... and scrolling back to the top shows the first message again.
    await expect
      .poll(
        async () => {
          await scrollTo(page, 0);
          return page.locator('.msg.person[data-key="objective"]').isVisible();
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);

  it("shows a new message at the bottom and the live region hears it whole; axe finds nothing serious", async () => {
    if (!present) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    // axe runs in the page: a context that lets its script past the CSP (for the test only).
    const context = await axeContext(browser as Browser);
    const { page, problems } = await openStudio(context, serving?.url ?? "", token, `#task=${taskId}`);
    await page.locator(`#task[data-seq="${lastSeq}"]`).waitFor({ state: "attached", timeout: 30_000 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axe(page), scheme).toEqual([]);
    }
    // To the end, where a person reading a live task is.
    await expect
      .poll(
        async () => {
          await scrollTo(page, await bottom(page));
          return page.locator(".msg.assistant", { hasText: "Done." }).isVisible();
        },
        { timeout: 20_000 },
      )
      .toBe(true);
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
    await page.getByLabel("Message").fill("One more, please.");
    await page.getByRole("button", { name: "Send", exact: true }).click();
    // Stored: the person's message and the answer to it.
    await expect
      .poll(
        async () =>
          (await store?.read(taskId))?.some((event) => event.type === "model_turn" && event.text === LAST) ?? false,
        { timeout: 30_000 },
      )
      .toBe(true);
    const last = page.locator(".msg.assistant", { hasText: LAST });
    await last.waitFor({ state: "attached", timeout: 30_000 });
    await expect
      .poll(async () => {
        await scrollTo(page, await bottom(page));
        return last.isVisible();
      })
      .toBe(true);
    expect(await page.locator(".msg.person", { hasText: "One more, please." }).count()).toBe(1);
    const heard = await page.evaluate(() => (globalThis as unknown as PageGlobals).heard);
    expect(heard.filter((text) => text !== "")).toEqual([`Assistant: ${LAST}`]);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await axe(page), scheme).toEqual([]);
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});

/**
 * The studio's experiments end to end in real headless Chromium against `serve()` on loopback (as
 * console-studio.test.ts): a dataset saved and run twice over the API (the geography agent, then
 * its variant that gets Spain wrong), the list with each run's means, one experiment's cases with
 * their input, expected answer, scores and a link to the task, the two compared with the
 * regression marked, axe-core on each view, light and dark, and a running experiment followed
 * until it ends. Polls with deadlines, never fixed sleeps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATASET, geoAgent } from "../../../evals/src/experiments/experiment.fixture.ts";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { type Serving, serve } from "../node/serve.ts";
import { type BearerJsonInit, bearerJson } from "../test-support/bearer-json.ts";
import {
  axeContext,
  axeSerious,
  browserRequired,
  chromiumPresent,
  launchChromium,
  openStudio,
  WHY_SKIPPED,
} from "../test-support/studio-browser.ts";
import { until } from "../test-support/until.ts";
import { webConsole } from "./console-protocol.ts";

if (!chromiumPresent && !browserRequired) console.warn(`studio experiments browser tests SKIPPED: ${WHY_SKIPPED}`);

const dir = mkdtempSync(join(tmpdir(), "sema-studio-evals-"));
let browser: Browser | undefined;
let serving: Serving | undefined;
let store: SqliteStore | undefined;
let tokens: SqliteTokenStore | undefined;
let token = "";
let baseline = "";
let candidate = "";
/** Lets the `held` agent's answers go (each waits for it): its experiment runs until then. */
let release = () => {};
const released = new Promise<void>((resolve) => {
  release = resolve;
});

async function call<T>(path: string, init: BearerJsonInit = {}): Promise<T> {
  return bearerJson<T>(serving?.url ?? "", token, path, init);
}

/** Starts an experiment over the geography dataset and waits (with a deadline) until it has ended. */
async function experiment(agent: string, name: string): Promise<string> {
  const { experimentId } = await call<{ experimentId: string }>("/v1/evals/experiments", {
    body: { dataset: "geo", agent, name, scorers: ["exact-match", "includes"] },
  });
  await until(
    async () => !(await call<{ running: boolean }>(`/v1/evals/experiments/${experimentId}`)).running,
    `experiment ${name} to end`,
    30_000,
  );
  return experimentId;
}

afterAll(async () => {
  release();
  await browser?.close();
  await serving?.close({ deadlineMs: 2000 });
  await store?.close();
  await tokens?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(chromiumPresent || browserRequired)("the studio's experiments in Chromium", () => {
  beforeAll(async () => {
    if (!chromiumPresent) return;
    const path = join(dir, "sema.db");
    store = new SqliteStore({ path });
    tokens = new SqliteTokenStore({ path });
    serving = await serve({
      protocols: [webConsole()],
      store,
      tokens,
      agents: createAgentRegistry(
        {
          geo: geoAgent("A").agent,
          "geo-b": geoAgent("B").agent,
          held: {
            model: new ScriptedModel(
              [
                async () => {
                  await released;
                  return { text: "Madrid" };
                },
              ],
              { mode: "by-transcript" },
            ),
          },
        },
        "geo",
      ),
      port: 0,
      // The experiments run their cases on this node themselves: no worker pool beside them.
      workers: false,
    });
    token = (await tokens.create({ principal: "local", actorId: "dana" })).token;
    await call("/v1/evals/datasets/geo", { raw: DATASET });
    baseline = await experiment("geo", "baseline");
    candidate = await experiment("geo-b", "candidate");
    browser = await launchChromium();
  }, 90_000);

  it("lists the experiments, opens one with its cases and their tasks, and compares two", async () => {
    if (!chromiumPresent) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { page, problems } = await openStudio(browser as Browser, serving?.url ?? "", token);
    // The list's means come in one request (`?summary=true`), not one per experiment.
    const asked: string[] = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/v1/evals/experiments")) asked.push(path + new URL(request.url()).search);
    });
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Experiments" }).click();
    const list = page.getByRole("region", { name: "Experiments" });
    await list.locator(`tr[data-experiment-id="${candidate}"]`).waitFor();
    expect(asked).toEqual(["/v1/evals/experiments?summary=true"]);
    const row = (id: string) => list.locator(`tr[data-experiment-id="${id}"] > *`).allTextContents();
    expect(await row(baseline)).toEqual([
      "baseline",
      "geo v1",
      "geo · script:geo-A",
      "finished",
      "exact-match 1 · includes 1",
      "4",
    ]);
    expect(await row(candidate)).toEqual([
      "candidate",
      "geo v1",
      "geo-b · script:geo-B",
      "finished",
      "exact-match 0.75 · includes 0.75",
      "4",
    ]);

    // One experiment: each case with its input, expected answer, scores, and its task.
    await list.getByRole("link", { name: "candidate" }).click();
    const one = page.getByRole("region", { name: "Experiment candidate" });
    const spain = one.locator('tr[data-case-id="spain"]');
    await spain.waitFor();
    expect(await spain.locator("> *").allTextContents()).toEqual([
      "spain",
      "Capital of Spain?",
      "Madrid",
      "completed",
      expect.stringMatching(/^0/),
      expect.stringMatching(/^0/),
      "Open task",
    ]);
    expect(await one.locator('tr[data-case-id="france"] td.score .num').allTextContents()).toEqual(["1", "1"]);
    await one.getByRole("link", { name: "Open task: case spain" }).click();
    await page.waitForURL(/#task=/);
    await page
      .getByRole("region", { name: "Conversation" })
      .locator(".msg.assistant", { hasText: "Barcelona" })
      .waitFor();

    // Compare: the baseline against the candidate, the regression marked in words.
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Experiments" }).click();
    await list.locator(`tr[data-experiment-id="${candidate}"]`).waitFor();
    await list.getByLabel("Baseline (A)").selectOption(baseline);
    await list.getByLabel("Candidate (B)").selectOption(candidate);
    await list.getByRole("button", { name: "Compare" }).click();
    const compare = page.getByRole("region", { name: "Compare baseline with candidate" });
    await compare.locator('tr[data-case-id="spain"]').waitFor();
    expect(await compare.locator("#compare-counts").textContent()).toBe(
      "0 improved, 1 regressed, 0 mixed, 3 unchanged",
    );
    expect(await compare.locator('tr[data-scorer="exact-match"] > *').allTextContents()).toEqual([
      "exact-match",
      "1",
      "0.75",
      "−0.25",
    ]);
    const changes = await compare
      .locator("tbody tr[data-case-id]")
      .evaluateAll((rows) => rows.map((tr) => [tr.getAttribute("data-case-id"), tr.getAttribute("data-change")]));
    expect(changes).toEqual([
      ["portugal", "same"],
      ["france", "same"],
      ["spain", "worse"],
      ["italy", "same"],
    ]);
    expect(await compare.locator('tr[data-case-id="spain"] td[data-scorer="exact-match"]').textContent()).toBe(
      "1 → 0 worse−1",
    );
    // A reload keeps the comparison (it is in the URL).
    await page.reload();
    await compare.locator('tr[data-case-id="spain"][data-change="worse"]').waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("has no serious or critical accessibility violation on the experiments views, light or dark", async () => {
    if (!chromiumPresent) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await axeContext(browser as Browser, colorScheme);
      const { page } = await openStudio(context, serving?.url ?? "", token, "#experiments");
      await page.getByRole("region", { name: "Experiments" }).locator(`tr[data-experiment-id="${baseline}"]`).waitFor();
      expect(await axeSerious(page), `experiments, ${colorScheme}`).toEqual([]);
      await page.goto(`${serving?.url}/#experiment=${encodeURIComponent(candidate)}`);
      await page.getByRole("region", { name: "Experiment candidate" }).locator('tr[data-case-id="spain"]').waitFor();
      expect(await axeSerious(page), `experiment, ${colorScheme}`).toEqual([]);
      await page.goto(`${serving?.url}/#compare=${encodeURIComponent(baseline)}&with=${encodeURIComponent(candidate)}`);
      await page
        .getByRole("region", { name: "Compare baseline with candidate" })
        .locator('tr[data-case-id="spain"]')
        .waitFor();
      expect(await axeSerious(page), `compare, ${colorScheme}`).toEqual([]);
      await context.close();
    }
  }, 120_000);

  it("follows a running experiment until it ends, without a reload", async () => {
    if (!chromiumPresent) throw new Error(`SEMA_REQUIRE_BROWSER=1 but ${WHY_SKIPPED}`);
    const { experimentId } = await call<{ experimentId: string }>("/v1/evals/experiments", {
      body: { dataset: "geo", agent: "held", name: "held", scorers: ["exact-match"] },
    });
    const { page, problems } = await openStudio(browser as Browser, serving?.url ?? "", token, "#experiments");
    const status = page
      .getByRole("region", { name: "Experiments" })
      .locator(`tr[data-experiment-id="${experimentId}"] .status`);
    await status.filter({ hasText: "running" }).waitFor();
    await page.evaluate(() => {
      (globalThis as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    release();
    await status.filter({ hasText: "finished" }).waitFor({ timeout: 20_000 });
    expect(await page.locator(`tr[data-experiment-id="${experimentId}"] > *`).nth(4).textContent()).toBe(
      "exact-match 0.25",
    );
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);
});

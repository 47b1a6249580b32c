/**
 * For the studio's Chromium tests (console-*.test.ts): the one page setup they share — where
 * Chromium is and why a test skips, launching it headless and offline, opening the page (signed in
 * or not) while collecting its errors, a context axe-core may run in, axe-core's serious and
 * critical findings, and the studio's source modules for a test that drives one in the page.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { CONSOLE_DIR } from "../console/console-routes.ts";

/** The Chromium binary: `SEMA_CHROMIUM`, else the system's. */
export const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";
/** Whether it is installed. */
export const chromiumPresent = existsSync(CHROMIUM);
/** `SEMA_REQUIRE_BROWSER=1`: a missing Chromium fails the tests instead of skipping them. */
export const browserRequired = process.env.SEMA_REQUIRE_BROWSER === "1";
/** Why the browser tests skip (or fail, when required). */
export const WHY_SKIPPED = `${CHROMIUM} is missing (install it with \`apt-get install -y chromium\`; SEMA_REQUIRE_BROWSER=1 makes this a failure)`;

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Headless Chromium that calls nothing but the pages it is sent to. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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

/** Requests the studio makes of routes an older server lacks: a 404 there is expected, not a problem. */
const PROBE = /\/v1\/(tasks\/stream|approvals|agents)$/;

/**
 * A page of the studio at `url` + `hash`, not signed in, with the page errors and console errors
 * it logs (but the expected 404s of probes for routes an older server lacks): for a test that
 * signs in its own way (a refused token first, the keyboard alone).
 */
export async function openPage(
  context: BrowserContext | Browser,
  url: string,
  hash = "",
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !PROBE.test(new URL(message.location().url, "http://x").pathname))
      problems.push(message.text());
  });
  await page.goto(`${url}/${hash}`);
  return { page, problems };
}

/** {@link openPage}, signed in with `token` (the workspace shown). */
export async function openStudio(
  context: BrowserContext | Browser,
  url: string,
  token: string,
  hash = "",
): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(context, url, hash);
  await opened.page.getByLabel("API token").fill(token);
  await opened.page.getByLabel("API token").press("Enter");
  await opened.page.locator("#workspace").waitFor({ state: "visible" });
  return opened;
}

/**
 * A browser context for {@link axeSerious}: the studio's CSP refuses axe's injected script, so
 * this context bypasses it (for the accessibility check only), in the given colour scheme.
 */
export function axeContext(browser: Browser, colorScheme?: "light" | "dark"): Promise<BrowserContext> {
  return browser.newContext(colorScheme === undefined ? { bypassCSP: true } : { bypassCSP: true, colorScheme });
}

/** axe-core's findings on the page, as seen from the test (this file is compiled without the DOM's types). */
type AxeGlobals = {
  document: unknown;
  axe: {
    run: (context: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }>;
  };
};

/** axe-core in the page (a context that bypasses the CSP only for this), serious and critical findings. */
export async function axeSerious(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => {
    const page = globalThis as unknown as AxeGlobals;
    const result = await page.axe.run(page.document);
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => JSON.stringify(node.target)),
    }));
  });
  return found
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.targets.join(", ")}`);
}

/** Where {@link routeModules} answers a source module: a path the server itself never serves. */
export const MODULES_PATH = "/console/src/";

/**
 * The studio's source modules at `/console/src/<name>.js` for `target` (a page or a context),
 * answered by the browser from `packages/server/console/`, never by the server: the page loads
 * only the bundle, and a test that drives one module in the page (`import("/console/src/trace.js")`)
 * gets it, and what it imports, this way. Same origin, so the page's CSP admits it.
 */
export async function routeModules(target: Page | BrowserContext): Promise<void> {
  await target.route(/\/console\/src\/[a-z-]+\.js$/, (route) => {
    const name = new URL(route.request().url()).pathname.slice(MODULES_PATH.length);
    return route.fulfill({
      status: 200,
      contentType: "text/javascript; charset=utf-8",
      body: readFileSync(new URL(name, CONSOLE_DIR), "utf8"),
    });
  });
}

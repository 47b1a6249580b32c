/**
 * Opens every page of the site in headless Chromium (Debian's `chromium`): the site is built into
 * docs/.vitepress/cache/browser-site and served on a local port, and the test fails on a console
 * error, a failed or 404 request, or a page whose content is empty. Without the browser it says it
 * was skipped and why, unless SEMA_REQUIRE_BROWSER=1 (CI), where a missing browser fails.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DOCS_DIR, htmlFor, markdownPages, REPO_DIR } from "./docs-support.ts";

const SITE_DIR = join(DOCS_DIR, ".vitepress", "cache", "browser-site");

/** Debian's browser; SEMA_CHROMIUM names another binary (or a missing one, to see the skip). */
const CHROMIUM = process.env.SEMA_CHROMIUM ?? "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
const required = process.env.SEMA_REQUIRE_BROWSER === "1";
const WHY_SKIPPED = `${CHROMIUM} is missing (install it with \`apt-get install -y chromium\`; SEMA_REQUIRE_BROWSER=1 makes this a failure)`;
if (!present && !required) console.warn(`docs browser test SKIPPED: ${WHY_SKIPPED}`);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

/** The dist folder over HTTP, as a static host serves it: a missing file is a 404. */
function serveDist(): Promise<Server> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    // Chromium may still ask for /favicon.ico on its own (the site links an SVG icon); a real host answers.
    if (path === "/favicon.ico") {
      response.writeHead(204).end();
      return;
    }
    const file = normalize(join(SITE_DIR, path.endsWith("/") ? `${path}index.html` : path));
    if (!file.startsWith(SITE_DIR) || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let browser: Browser | undefined;
let server: Server | undefined;

describe.runIf(present || required)("the docs site in Chromium", () => {
  beforeAll(async () => {
    // A build of its own, in its own folder: site.test.ts rebuilds docs/.vitepress/dist at the same
    // time in another worker, and a build empties its folder first.
    rmSync(SITE_DIR, { recursive: true, force: true });
    // The documented build (the CLI and API reference pages first), into this test's own folder.
    execFileSync("npm", ["run", "docs:build", "--", "--outDir", SITE_DIR], { cwd: REPO_DIR, stdio: "pipe" });
    server = await serveDist();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(SITE_DIR, { recursive: true, force: true });
  });

  it("shows every page with content, no console error and no failed request", { timeout: 120_000 }, async () => {
    if (browser === undefined || server === undefined) throw new Error("the browser did not start");
    const { port } = server.address() as AddressInfo;
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error on ${page.url()}: ${error.message}`));
    // Moving to the next page aborts the chunks VitePress was prefetching for the sidebar's links
    // (net::ERR_ABORTED): those are fetched again at the end and must be there; any other failure
    // counts at once.
    const aborted = new Set<string>();
    page.on("requestfailed", (request) => {
      if (request.failure()?.errorText === "net::ERR_ABORTED") aborted.add(request.url());
      else problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? "?"})`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
    });
    for (const source of markdownPages()) {
      const path = source === "index.md" ? "/" : `/${htmlFor(source)}`;
      const response = await page.goto(`http://127.0.0.1:${port}${path}`, { waitUntil: "networkidle" });
      expect(response?.status(), path).toBe(200);
      const text = ((await page.locator(".vp-doc").first().textContent()) ?? "").trim();
      expect(text.length, `${path} is empty`).toBeGreaterThan(100);
    }
    for (const url of aborted) {
      const again = await page.request.get(url);
      if (again.status() !== 200) problems.push(`${again.status()} for ${url} (fetched again after an abort)`);
    }
    expect(problems).toEqual([]);
  });
});

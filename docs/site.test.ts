/**
 * Builds the site the way `npm run docs:build` does (which also fails on a dead internal link,
 * VitePress's default) and checks every Markdown page came out as a page with its content.
 * docs-browser.test.ts then opens the built pages in Chromium.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DIST_DIR, DOCS_DIR, htmlFor, markdownPages, REPO_DIR } from "./docs-support.ts";

const REQUIRED = [
  "index.md",
  "guide/getting-started.md",
  "guide/concepts.md",
  "guide/steering.md",
  "guide/approvals-and-hooks.md",
  "guide/tools-and-mcp.md",
  "guide/a2a-client.md",
  "guide/delegation-and-budgets.md",
  "guide/budgets-and-quotas.md",
  "guide/stores.md",
  "guide/serving.md",
  "guide/front-ends.md",
  "guide/mcp-server.md",
  "guide/a2a.md",
  "guide/many-machines.md",
  "guide/observability.md",
  "guide/testing.md",
  "guide/time-travel.md",
  "guide/benchmarks.md",
  "reference/cli.md",
  "api/index.md",
  "api/core.md",
  "api/core/testing.md",
  "api/core/time-travel.md",
  "api/server.md",
  "agent-api.md",
  "configuration.md",
  "design.md",
  "decisions/index.md",
  "decisions/0001-event-log.md",
  "decisions/0002-lanes-and-frames.md",
  "decisions/0003-approvals-by-digest.md",
  "decisions/0004-group-commit.md",
  "decisions/0005-provenance-policy.md",
];

describe("the docs site", () => {
  it("builds with npm run docs:build and has every page", { timeout: 180_000 }, () => {
    execFileSync("npm", ["run", "docs:build"], { cwd: REPO_DIR, stdio: "pipe" });
    const pages = markdownPages();
    expect(pages).toEqual(expect.arrayContaining(REQUIRED));
    for (const page of pages) {
      const html = join(DIST_DIR, htmlFor(page));
      expect(existsSync(html), `${page} was not built`).toBe(true);
      expect(readFileSync(html, "utf8"), `${page} has no heading`).toMatch(/<h1[ >]/);
    }
    // The golden frames are copied from the core's test file, byte for byte (snippets.test.ts).
    expect(readFileSync(join(DIST_DIR, "guide/steering.html"), "utf8")).toContain("Please stop.");
    // The icon every page links, and the local search index, built with the site (no service).
    expect(readFileSync(join(DIST_DIR, "index.html"), "utf8")).toContain(
      '<link rel="icon" type="image/svg+xml" href="/favicon.svg">',
    );
    expect(existsSync(join(DIST_DIR, "favicon.svg"))).toBe(true);
    const chunks = readdirSync(join(DIST_DIR, "assets", "chunks"));
    expect(chunks.some((file) => file.startsWith("@localSearchIndexroot"))).toBe(true);
  });

  it("fails the build on a dead internal link, with the site's own config", { timeout: 180_000 }, () => {
    // A site of one page with a dead link, built with a copy of docs/.vitepress/config.ts; it sits
    // under the git-ignored cache so the config resolves vitepress from the repository.
    const site = join(DOCS_DIR, ".vitepress", "cache", "dead-link-site");
    rmSync(site, { recursive: true, force: true });
    mkdirSync(join(site, ".vitepress"), { recursive: true });
    copyFileSync(join(DOCS_DIR, ".vitepress", "config.ts"), join(site, ".vitepress", "config.ts"));
    writeFileSync(join(site, "index.md"), "# A page\n\n[gone](./missing.md)\n");
    const vitepress = join(REPO_DIR, "node_modules", ".bin", "vitepress");
    const run = spawnSync(vitepress, ["build", site], { encoding: "utf8" });
    rmSync(site, { recursive: true, force: true });
    expect(run.status).not.toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain("dead link");
  });
});

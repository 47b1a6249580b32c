/**
 * The console's routes: every asset served with its content type and a strict CSP, nothing but the
 * allowlisted files, no authentication needed for them while `/v1` still needs it, and the assets
 * themselves free of inline code and of markup built from data.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bundleConsole } from "../../../../scripts/build-console.ts";
import { apiFixture } from "../test-support/api-fixture.ts";
import { CONSOLE_ASSETS, CONSOLE_BUNDLE_FILE, CONSOLE_CSP, CONSOLE_DIR, consoleRoutes } from "./console-routes.ts";

const asset = (file: string) => readFileSync(new URL(file, CONSOLE_DIR), "utf8");
/** The studio's source modules (app.js and what it imports), which the bundle is made of. */
const MODULES = readdirSync(CONSOLE_DIR).filter((file) => file.endsWith(".js"));

describe("the web console's routes", () => {
  it("serves the page at / without a token, with a strict content security policy", async () => {
    const fixture = await apiFixture();
    const response = await fixture.call("GET", "/", { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(await response.text()).toContain('<script type="module" src="/console/studio.js"></script>');
  });

  it("serves every asset with its content type", async () => {
    const fixture = await apiFixture();
    for (const [path, { file }] of Object.entries(CONSOLE_ASSETS)) {
      const response = await fixture.call("GET", path, { token: null });
      expect(response.status, path).toBe(200);
      const type = file.endsWith(".js")
        ? "text/javascript; charset=utf-8"
        : file.endsWith(".css")
          ? "text/css; charset=utf-8"
          : file.endsWith(".svg")
            ? "image/svg+xml"
            : "text/html; charset=utf-8";
      expect(response.headers.get("content-type"), path).toBe(type);
      expect(response.headers.get("content-security-policy"), path).toBe(CONSOLE_CSP);
      expect(await response.text(), path).toBe(asset(file));
    }
  });

  it("gzips for a browser that accepts it, and answers a revalidation with 304", async () => {
    const fixture = await apiFixture();
    const tags = new Set<string>();
    for (const [path, { file }] of Object.entries(CONSOLE_ASSETS)) {
      const zipped = await fixture.call("GET", path, { token: null, headers: { "accept-encoding": "gzip, br" } });
      expect(zipped.status, path).toBe(200);
      expect(zipped.headers.get("content-encoding"), path).toBe("gzip");
      expect(zipped.headers.get("vary"), path).toBe("accept-encoding");
      expect(gunzipSync(new Uint8Array(await zipped.arrayBuffer())).toString("utf8"), path).toBe(asset(file));
      const etag = zipped.headers.get("etag") ?? "";
      expect(etag, path).toMatch(/^"[\w-]{22}"$/);
      tags.add(`${file} ${etag}`);
      for (const sent of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const again = await fixture.call("GET", path, { token: null, headers: { "if-none-match": sent } });
        expect(again.status, `${path} ${sent}`).toBe(304);
        expect(await again.text(), path).toBe("");
        expect(again.headers.get("etag"), path).toBe(etag);
        expect(again.headers.get("content-security-policy"), path).toBe(CONSOLE_CSP);
      }
      const changed = await fixture.call("GET", path, { token: null, headers: { "if-none-match": '"stale"' } });
      expect(changed.status, path).toBe(200);
      expect(changed.headers.get("content-encoding"), path).toBeNull();
    }
    // One tag per file: two files never share one.
    const byFile = new Map([...tags].map((entry) => entry.split(" ") as [string, string]));
    expect(new Set(byFile.values()).size).toBe(byFile.size);
  });

  it("loads one script: every module bundled, as the modules are now", async () => {
    const html = asset("index.html");
    expect([...html.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual([
      '<script type="module" src="/console/studio.js">',
    ]);
    expect(html).not.toContain("modulepreload");
    expect(CONSOLE_ASSETS["/console/studio.js"]?.file).toBe(CONSOLE_BUNDLE_FILE);
    // What is served is a fresh build of the modules (vitest's global setup builds it), not an old one.
    const fixture = await apiFixture();
    const served = await (await fixture.call("GET", "/console/studio.js", { token: null })).text();
    expect(served).toBe(await bundleConsole());
    // Self-contained (it imports nothing) and made of every module there is.
    expect(served).not.toMatch(/^\s*(import|export)\b/m);
    expect(MODULES.length).toBeGreaterThan(20);
    for (const file of MODULES) expect(served, file).toContain(`\n// packages/server/console/${file}\n`);
  });

  it("serves nothing else, and the API still needs a token", async () => {
    const fixture = await apiFixture();
    for (const path of [
      "/console/",
      "/console/nope.js",
      "/console/../package.json",
      "/console/studio.js/x",
      "/console/dist/studio.js",
      "/index.html",
      // The modules are in the bundle, not served one by one.
      ...MODULES.map((file) => `/console/${file}`),
    ]) {
      const response = await fixture.call("GET", path, { token: null });
      expect(response.status, path).toBe(404);
      expect(await response.json(), path).toMatchObject({ error: { code: "NotFound" } });
    }
    expect((await fixture.call("POST", "/", { token: null })).status).toBe(404);
    expect((await fixture.call("GET", "/v1/tasks", { token: null })).status).toBe(401);
  });

  it("references only assets it serves", () => {
    const served = new Set(Object.keys(CONSOLE_ASSETS));
    const html = asset("index.html");
    // (A fragment is a place in the page, not a request.)
    for (const [, url] of html.matchAll(/(?:src|href)="([^"#][^"]*)"/g)) expect(served, url).toContain(url);
    // The bundle requests nothing more: no import of any kind.
    expect(asset(CONSOLE_BUNDLE_FILE)).not.toMatch(/^\s*import\b|\bimport\s*\(/m);
  });

  it("has no inline script or style, and never turns data into markup", () => {
    const html = asset("index.html");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    for (const file of [...MODULES, CONSOLE_BUNDLE_FILE])
      expect(asset(file), file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/,
      );
  });

  it("refuses to start without the bundle, saying how to build it", () => {
    const bare = mkdtempSync(join(tmpdir(), "sema-console-"));
    try {
      for (const file of ["index.html", "console.css", "favicon.svg"])
        cpSync(new URL(file, CONSOLE_DIR), join(bare, file));
      expect(() => consoleRoutes({ dir: pathToFileURL(`${bare}/`) })).toThrow(
        /studio's bundle .*dist\/studio\.js is missing: run `npm run build`/,
      );
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

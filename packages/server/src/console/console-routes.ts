/**
 * The web console (the studio): a static page, one script (its ES modules bundled at build time,
 * docs/guide/studio.md says why), a stylesheet and an icon, served by the API's own process at
 * `/`. The assets in `packages/server/console/` are read once, when the routes are made, and
 * served from memory, each with an ETag (a revisit revalidates and gets 304s) and gzipped once for
 * a browser that accepts it. They talk to `/v1` with the token the person signs in with, so this
 * module needs no authentication of its own: it serves nothing but public files.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { Hono } from "hono";

/**
 * No inline script or style anywhere, so the policy can allow this origin only: text that ever
 * slipped into the page as markup could neither run nor load anything, nor send a token away.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  // blob: for the images a task's inputs carried, fetched with the token and shown by object URL.
  "img-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The bundle, relative to the assets folder: written by scripts/build-console.ts (`npm run build`). */
export const CONSOLE_BUNDLE_FILE = "dist/studio.js";

const TYPES = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
} as const;

/** URL path → file in the assets folder. An allowlist: a request can name nothing else. */
export const CONSOLE_ASSETS: Readonly<Record<string, { file: string; type: keyof typeof TYPES }>> = {
  "/": { file: "index.html", type: "html" },
  "/console/console.css": { file: "console.css", type: "css" },
  "/console/favicon.svg": { file: "favicon.svg", type: "svg" },
  "/favicon.ico": { file: "favicon.svg", type: "svg" },
  // The modules (app.js and all it imports) bundled into one script by the build: the page makes
  // one request for them, not 25. The modules themselves are not served.
  "/console/studio.js": { file: CONSOLE_BUNDLE_FILE, type: "js" },
};

/**
 * `packages/server/console/`: two levels up from this module both in `src/console/` (tests,
 * sources) and in `dist/console/` (the build), so one path serves both.
 */
export const CONSOLE_DIR = new URL("../../console/", import.meta.url);

/**
 * Serves the studio's assets from `dir` (by default the package's `console/` folder), read once,
 * now; fails if the bundle is missing there (a checkout that was never built).
 */
export function consoleRoutes(options: { dir?: URL } = {}): Hono {
  const dir = options.dir ?? CONSOLE_DIR;
  const app = new Hono();
  for (const [path, asset] of Object.entries(CONSOLE_ASSETS)) {
    const body = read(new URL(asset.file, dir), asset.file);
    const gzipped = gzipSync(body, { level: 9 });
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    const headers = {
      "content-type": TYPES[asset.type],
      "content-security-policy": CONSOLE_CSP,
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      // Revalidate every time (a console older than its server would call routes it lacks); the
      // ETag makes that a 304 with no body.
      "cache-control": "no-cache",
      etag,
      vary: "accept-encoding",
    };
    app.get(path, (c) => {
      if (matches(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers);
      if (/\bgzip\b/.test(c.req.header("accept-encoding") ?? ""))
        return c.body(new Uint8Array(gzipped), 200, { ...headers, "content-encoding": "gzip" });
      return c.body(new Uint8Array(body), 200, headers);
    });
  }
  return app;
}

/** The file's bytes; a missing bundle says how to make it rather than just ENOENT. */
function read(url: URL, file: string): Buffer {
  try {
    return readFileSync(url);
  } catch (error) {
    if (file !== CONSOLE_BUNDLE_FILE || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new Error(
      `the studio's bundle ${fileURLToPath(url)} is missing: run \`npm run build\` (it bundles packages/server/console/*.js)`,
      { cause: error },
    );
  }
}

/** Whether an `If-None-Match` header names `etag` (or is `*`); weak and strong forms alike. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value === etag || value === `W/${etag}`;
  });
}

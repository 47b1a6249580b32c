/**
 * The web console (the studio): a static page, plain ES modules, a stylesheet and an icon, served
 * by the API's own process at `/`. No build step (docs/guide/studio.md says why): the assets in `packages/server/console/` are read once, when the
 * routes are made, and served from memory, each with an ETag (a revisit revalidates and gets 304s)
 * and gzipped once for a browser that accepts it. They talk to `/v1` with the token the person signs in
 * with, so this module needs no authentication of its own: it serves nothing but public files.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
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
  "/console/app.js": { file: "app.js", type: "js" },
  "/console/agents.js": { file: "agents.js", type: "js" },
  "/console/api.js": { file: "api.js", type: "js" },
  "/console/approvals.js": { file: "approvals.js", type: "js" },
  "/console/conversation.js": { file: "conversation.js", type: "js" },
  "/console/dom.js": { file: "dom.js", type: "js" },
  "/console/event-log.js": { file: "event-log.js", type: "js" },
  "/console/experiments.js": { file: "experiments.js", type: "js" },
  "/console/experiments-view.js": { file: "experiments-view.js", type: "js" },
  "/console/fold.js": { file: "fold.js", type: "js" },
  "/console/fold-conversation.js": { file: "fold-conversation.js", type: "js" },
  "/console/fold-cost.js": { file: "fold-cost.js", type: "js" },
  "/console/fold-timeline.js": { file: "fold-timeline.js", type: "js" },
  "/console/inbox.js": { file: "inbox.js", type: "js" },
  "/console/markdown.js": { file: "markdown.js", type: "js" },
  "/console/stream.js": { file: "stream.js", type: "js" },
  "/console/task-controls.js": { file: "task-controls.js", type: "js" },
  "/console/task-list.js": { file: "task-list.js", type: "js" },
  "/console/task-view.js": { file: "task-view.js", type: "js" },
  "/console/task-log.js": { file: "task-log.js", type: "js" },
  "/console/timeline.js": { file: "timeline.js", type: "js" },
  "/console/trace.js": { file: "trace.js", type: "js" },
  "/console/window-list.js": { file: "window-list.js", type: "js" },
};

/**
 * `packages/server/console/`: two levels up from this module both in `src/console/` (tests,
 * sources) and in `dist/console/` (the build), so one path serves both.
 */
export const CONSOLE_DIR = new URL("../../console/", import.meta.url);

export function consoleRoutes(options: { dir?: URL } = {}): Hono {
  const dir = options.dir ?? CONSOLE_DIR;
  const app = new Hono();
  for (const [path, asset] of Object.entries(CONSOLE_ASSETS)) {
    const body = readFileSync(new URL(asset.file, dir));
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

/** Whether an `If-None-Match` header names `etag` (or is `*`); weak and strong forms alike. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const value = tag.trim();
    return value === "*" || value === etag || value === `W/${etag}`;
  });
}

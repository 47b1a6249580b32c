import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";

const API_DIR = fileURLToPath(new URL("../api/", import.meta.url));

/** The API reference's pages (generated into docs/api/ by `npm run docs:api`), one per entry point. */
function apiPages(): { text: string; link: string }[] {
  if (!existsSync(API_DIR)) return [];
  return readdirSync(API_DIR, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md") && file !== "index.md")
    .map((file) => file.slice(0, -".md".length))
    .sort()
    .map((path) => ({ text: `@sema-agent/${path}`, link: `/api/${path}` }));
}

// Dead internal links fail the build: VitePress checks them by default and ignoreDeadLinks stays
// unset. Nothing here loads from the network (search is VitePress's local index, built with the
// site; no fonts from a CDN), so the site builds and searches offline.
export default defineConfig({
  title: "Sema",
  description: "A stateless, task-oriented AI agent core for TypeScript",
  srcExclude: ["**/*.test.ts", "snippets/**"],
  head: [["link", { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" }]],
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Guide", link: "/guide/getting-started" },
      { text: "CLI", link: "/reference/cli" },
      { text: "API", link: "/api/" },
      { text: "Design", link: "/design" },
    ],
    sidebar: [
      {
        text: "Guide",
        items: [
          { text: "Getting started", link: "/guide/getting-started" },
          { text: "Concepts", link: "/guide/concepts" },
          { text: "Steering", link: "/guide/steering" },
          { text: "Approvals and hooks", link: "/guide/approvals-and-hooks" },
          { text: "Security: lanes, frames, provenance", link: "/guide/security" },
          { text: "Tools and MCP", link: "/guide/tools-and-mcp" },
          { text: "Delegating to A2A agents", link: "/guide/a2a-client" },
          { text: "Delegation and budgets", link: "/guide/delegation-and-budgets" },
          { text: "Budgets and quotas", link: "/guide/budgets-and-quotas" },
          { text: "Stores and crash recovery", link: "/guide/stores" },
          { text: "Operating a store", link: "/guide/operating-a-store" },
          { text: "Serving", link: "/guide/serving" },
          { text: "Front ends", link: "/guide/front-ends" },
          { text: "The studio (web console)", link: "/guide/studio" },
          { text: "MCP server", link: "/guide/mcp-server" },
          { text: "A2A server", link: "/guide/a2a" },
          { text: "Running on many machines", link: "/guide/many-machines" },
          { text: "Observability", link: "/guide/observability" },
          { text: "Testing your agents", link: "/guide/testing" },
          { text: "Time travel: fork, replay, export", link: "/guide/time-travel" },
          { text: "Evaluating agents", link: "/guide/evals" },
          { text: "Benchmarks", link: "/guide/benchmarks" },
        ],
      },
      {
        text: "Reference",
        items: [
          { text: "CLI reference", link: "/reference/cli" },
          { text: "The agent API", link: "/agent-api" },
          { text: "Configuration checks", link: "/configuration" },
          { text: "Design", link: "/design" },
        ],
      },
      {
        text: "Decision records",
        collapsed: true,
        items: [
          { text: "Index", link: "/decisions/" },
          { text: "1. The event log", link: "/decisions/0001-event-log" },
          { text: "2. Lanes and frames", link: "/decisions/0002-lanes-and-frames" },
          { text: "3. Approvals by digest", link: "/decisions/0003-approvals-by-digest" },
          { text: "4. Group commit", link: "/decisions/0004-group-commit" },
          { text: "5. The provenance policy", link: "/decisions/0005-provenance-policy" },
        ],
      },
      { text: "API reference", link: "/api/", collapsed: true, items: apiPages() },
    ],
  },
});

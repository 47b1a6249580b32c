/**
 * The HTTP side of bench/mcp.ts: `serve` over a SQLite file in `argv[2]`, its default agent on an
 * instant scripted model, the rate limit lifted (a benchmark's sequential calls are not abuse).
 * Prints `url token` on one line, then serves until SIGTERM.
 */
import { join } from "node:path";
import { ScriptedModel } from "@sema-agent/core/testing";
import { createAgentRegistry, MemoryTokenStore } from "@sema-agent/server";
import { mcp } from "@sema-agent/server/mcp";
import { serve } from "@sema-agent/server/node";
import { SqliteStore } from "@sema-agent/sqlite";

const dir = process.argv[2] ?? ".";
const store = new SqliteStore({ path: join(dir, "sema.db") });
const tokens = new MemoryTokenStore();
const { token } = await tokens.create({ principal: "bench", actorId: "bench", roles: ["approver"] });
const model = new ScriptedModel([{ text: "done" }], { mode: "by-transcript", recordRequests: false });
const serving = await serve({
  store,
  tokens,
  protocols: [mcp()],
  agents: createAgentRegistry({ default: { name: "default", model } }),
  port: 0,
  limits: { ratePerMinute: 1_000_000, rateBurst: 1_000_000 },
});
process.stdout.write(`${serving.url} ${token}\n`);
process.once("SIGTERM", () => {
  void serving.close({ deadlineMs: 1000 }).then(() => store.close());
});

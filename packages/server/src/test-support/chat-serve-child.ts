/**
 * A `serve()` process for tests that kill it: SQLite file at argv[2], a scripted default agent
 * that streams argv[3] slowly (by transcript, so a restarted process answers the same), and a
 * token made on start. Prints `ready <url> <token>` once listening.
 */
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { createAgentRegistry } from "@sema-agent/worker";
import { SqliteTokenStore } from "../ingress/sqlite-token-store.ts";
import { serve } from "../node/serve.ts";
import { allProtocols } from "./all-protocols.ts";

const path = process.argv[2] ?? "sema.db";
const answer = process.argv[3] ?? "";
const store = new SqliteStore({ path });
const tokens = new SqliteTokenStore({ path });
const model = new ScriptedModel([{ text: answer, chunkSize: 3, deltaDelayMs: 50 }], { mode: "by-transcript" });
const serving = await serve({
  protocols: allProtocols(),
  store,
  tokens,
  agents: createAgentRegistry({ default: { model } }),
  port: 0,
  workers: { pollMs: 50 },
});
const { token } = await tokens.create({ principal: "local", actorId: "dana" });
process.stdout.write(`ready ${serving.url} ${token}\n`);

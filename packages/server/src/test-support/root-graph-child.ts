/**
 * A child process for `module-graph.test.ts`: imports `@sema-agent/server` (its sources), creates
 * an app over a MemoryStore and answers one `/v1` request, mounting the protocols named in argv
 * (each from its subpath), then writes every module it resolved to `$SEMA_MODULE_LOG`.
 */
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    // Sema's own packages from their sources (as the tests run them); everything else as installed.
    const resolved = specifier.startsWith("@sema-agent/")
      ? nextResolve(specifier, { ...context, conditions: ["source", ...context.conditions] })
      : nextResolve(specifier, context);
    loaded.add(resolved.url);
    return resolved;
  },
});

const { MemoryStore } = await import("@sema-agent/core");
const { ScriptedModel } = await import("@sema-agent/core/testing");
const server = await import("@sema-agent/server");
const protocols = [];
for (const name of process.argv.slice(2)) {
  if (name === "a2a") protocols.push((await import("@sema-agent/server/a2a")).a2a());
  else if (name === "mcp") protocols.push((await import("@sema-agent/server/mcp")).mcp());
  else if (name === "ag-ui") protocols.push((await import("@sema-agent/server/ag-ui")).agUi());
  else if (name === "ui-stream") protocols.push((await import("@sema-agent/server/ui-stream")).uiStream());
  else if (name === "console") protocols.push((await import("@sema-agent/server/console")).webConsole());
  else throw new Error(`unknown protocol ${name}`);
}
const tokens = new server.MemoryTokenStore();
const { token } = await tokens.create({ principal: "graph" });
const app = server.createApp({
  store: new MemoryStore(),
  agents: server.createAgentRegistry({ default: { model: new ScriptedModel([{ text: "hi" }]) } }),
  ingress: server.createTokenIngress(tokens),
  protocols,
});
const response = await app.request("/v1/tasks", {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: JSON.stringify({ objective: "Say hi" }),
});
if (response.status !== 201) throw new Error(`POST /v1/tasks answered ${response.status}`);
writeFileSync(process.env.SEMA_MODULE_LOG ?? "", [...loaded].join("\n"));

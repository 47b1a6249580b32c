/**
 * `node --import ./lib/source-hooks.ts child.ts`: Sema's own packages resolve to their TypeScript
 * sources (the `source` condition) and nothing else does — applied to everything, the condition
 * also picks dependencies' TypeScript (eventsource-parser's), which Node does not strip under
 * node_modules. For children that load the MCP SDK's client or server.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!specifier.startsWith("@sema-agent/")) return nextResolve(specifier, context);
    return nextResolve(specifier, { ...context, conditions: ["source", ...context.conditions] });
  },
});

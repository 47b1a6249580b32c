/**
 * Vitest runs this repository's tests with Node's `--conditions source` (so workspace packages
 * load from their TypeScript). `eventsource-parser`, which the MCP SDK's HTTP client imports,
 * publishes a `source` condition too, pointing at TypeScript that Node refuses to strip under
 * node_modules. The root config works around it for the AI SDK by inlining its importers; this
 * package does not touch that config, so for its HTTP tests it resolves `eventsource-parser`
 * without the `source` condition instead. Import it before anything that loads the HTTP client.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!specifier.startsWith("eventsource-parser") || !context.conditions.includes("source")) {
      return nextResolve(specifier, context);
    }
    return nextResolve(specifier, { ...context, conditions: context.conditions.filter((c) => c !== "source") });
  },
});

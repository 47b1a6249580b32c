/**
 * `sema` as a child process running the TypeScript sources, for tests that need real separate
 * processes (SIGKILL included) without a build. Only Sema's own packages resolve to their sources
 * (the `source` condition): applied to everything, it would also pick dependencies' TypeScript
 * sources, which Node does not strip under node_modules. Signals are wired as in bin/sema.js.
 */
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (!specifier.startsWith("@sema-agent/")) return nextResolve(specifier, context);
    return nextResolve(specifier, { ...context, conditions: ["source", ...context.conditions] });
  },
});

const { main } = await import("../main.ts");
const interrupt = new AbortController();
process.on("SIGINT", () => interrupt.abort());
process.on("SIGTERM", () => interrupt.abort());
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interrupt: interrupt.signal,
});
// As bin/sema.js: nothing the command read keeps the process alive.
process.stdin.destroy();

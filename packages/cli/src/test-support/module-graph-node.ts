/**
 * `sema` as a child process, exactly as sema-node.ts runs it, that also writes every module the
 * process loaded — the URL each import or require resolved to, `node:` built-ins included, and the
 * built-ins taken through `process.getBuiltinModule` (which no resolve hook sees) — one a line to
 * the file `$SEMA_MODULE_LOG` when it exits. For tests of what a command loads.
 */
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const loaded = new Set<string>();
// Registered first, so it runs last in the chain: it sees what each specifier finally resolved to.
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    loaded.add(resolved.url);
    return resolved;
  },
});
// @sema-agent/sqlite takes node:sqlite this way (to drop Node 22's warning), past the hooks.
const getBuiltinModule = process.getBuiltinModule.bind(process);
process.getBuiltinModule = ((id: string) => {
  loaded.add(id.startsWith("node:") ? id : `node:${id}`);
  return getBuiltinModule(id);
}) as typeof process.getBuiltinModule;
process.on("exit", () => {
  const file = process.env.SEMA_MODULE_LOG;
  if (file !== undefined && file !== "") writeFileSync(file, [...loaded].join("\n"));
});

await import("./sema-node.ts");

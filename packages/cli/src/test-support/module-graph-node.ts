/**
 * `sema` as a child process, exactly as sema-node.ts runs it, that also writes every module the
 * process loaded — the URL each import or require resolved to, `node:` built-ins included — one a
 * line to the file `$SEMA_MODULE_LOG` when it exits. For tests of what a command loads.
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
process.on("exit", () => {
  const file = process.env.SEMA_MODULE_LOG;
  if (file !== undefined && file !== "") writeFileSync(file, [...loaded].join("\n"));
});

await import("./sema-node.ts");

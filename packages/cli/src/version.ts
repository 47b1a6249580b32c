/** `sema --version`: the version of @sema-agent/cli, read from its package.json (beside src/ and dist/ alike). */
import { readFileSync } from "node:fs";

export function cliVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: unknown;
  };
  return typeof manifest.version === "string" ? manifest.version : "unknown";
}

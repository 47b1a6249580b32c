/** The `retention` of the config in the working directory, for `sema prune` (which runs no agent). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { checkConfig } from "@sema-agent/core/protocol";
import { UsageError } from "../context.ts";
import { type RetentionPolicy, retentionPolicySchema } from "./policy.ts";

const CODE_FILES = ["sema.config.ts", "sema.config.mjs", "sema.config.js"];
const JSON_FILE = "sema.config.json";

/** The config's retention policy, checked (`ConfigError` naming the field); undefined without a config or one. */
export async function loadRetention(cwd: string): Promise<RetentionPolicy | undefined> {
  for (const name of CODE_FILES) {
    const path = join(cwd, name);
    if (!existsSync(path)) continue;
    const loaded = (await import(pathToFileURL(path).href)) as { default?: { retention?: unknown } };
    const retention = loaded.default?.retention;
    return retention === undefined ? undefined : checkConfig(retentionPolicySchema, retention, `${name} retention`);
  }
  const jsonPath = join(cwd, JSON_FILE);
  if (!existsSync(jsonPath)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(jsonPath, "utf8"));
  } catch (error) {
    throw new UsageError(`${JSON_FILE}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const retention = typeof raw === "object" && raw !== null ? (raw as { retention?: unknown }).retention : undefined;
  return retention === undefined ? undefined : checkConfig(retentionPolicySchema, retention, `${JSON_FILE} retention`);
}

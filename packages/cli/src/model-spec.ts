/** `--model` → a `Model`: `script:<file>` offline, anything else through the AI SDK providers. */
import { resolveModel } from "@sema-agent/ai-sdk";
import type { Model } from "@sema-agent/core";
import { loadScript } from "./script-file.ts";

export function modelFromSpec(spec: string, env: Readonly<Record<string, string | undefined>>): Model {
  if (spec.startsWith("script:")) return loadScript(spec.slice("script:".length));
  return resolveModel(spec, env);
}

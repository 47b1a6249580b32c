/**
 * `provider:model-id` specs to models, configured from an environment record only: nothing is read
 * from `process.env` behind the caller's back, so a host decides exactly what a model may see.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { type Model, SemaError } from "@sema-agent/core";
import { type RetryPolicy, withRetry } from "@sema-agent/core/model-kit";
import { nearestName } from "@sema-agent/core/protocol";
import { fromAiSdk } from "./from-ai-sdk.ts";

/** The providers {@link resolveModel} knows, by spec prefix. */
export const MODEL_PROVIDERS = ["anthropic", "openai", "openai-compatible"] as const;

// The vendors' public endpoints, passed explicitly: left unset, the AI SDK providers would fall
// back to ANTHROPIC_BASE_URL / OPENAI_BASE_URL in `process.env`, not in the record we were given.
const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1";
const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
/**
 * Every request carries the whole transcript (the log is the memory), so nothing needs keeping
 * on OpenAI's side: the Responses API stores responses unless told not to.
 */
const OPENAI_OPTIONS = { openai: { store: false } };

/**
 * A model spec cannot be resolved: an unknown provider, a missing model id, or a missing
 * environment variable. The message is one line that names what to set or change.
 */
export class ModelConfigError extends SemaError {
  /** The spec that failed to resolve. */
  readonly spec: string;
  /** The environment variable to set, when one is missing. */
  readonly variable: string | undefined;
  constructor(spec: string, message: string, variable?: string) {
    super("InvalidInput", message, { details: variable === undefined ? { spec } : { spec, variable } });
    this.name = "ModelConfigError";
    this.spec = spec;
    this.variable = variable;
  }
}

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  /** How failures before any content are retried (`withRetry`'s policy; `{ maxRetries: 0 }` never retries). */
  retry?: RetryPolicy;
}

/**
 * Resolve a `provider:model-id` spec to a {@link Model} whose `id` is the spec, wrapped in
 * `withRetry` so a 429, a 5xx or a dropped connection before any output is retried with backoff.
 *
 * - `anthropic:<id>` — `ANTHROPIC_API_KEY` (required), `ANTHROPIC_BASE_URL` (optional, with the
 *   `/v1` suffix as the AI SDK expects; the bare `https://api.anthropic.com` is accepted too).
 * - `openai:<id>` — `OPENAI_API_KEY` (required), `OPENAI_BASE_URL` (optional). Uses OpenAI's
 *   Responses API, the AI SDK's default for OpenAI, with `store: false` (nothing kept by OpenAI).
 * - `openai-compatible:<id>` — `OPENAI_COMPATIBLE_BASE_URL` (required, e.g.
 *   `http://localhost:11434/v1` for Ollama), `OPENAI_COMPATIBLE_API_KEY` (optional). Chat
 *   completions with `stream_options.include_usage`, for Ollama, vLLM, llama.cpp server, LM Studio.
 *
 * @throws ModelConfigError (code `InvalidInput`) naming the variable to set or the spec to fix.
 */
export function resolveModel(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
  options: ResolveModelOptions = {},
): Model {
  const colon = spec.indexOf(":");
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const modelId = colon < 0 ? "" : spec.slice(colon + 1);
  if (colon < 0 || modelId === "") {
    throw new ModelConfigError(
      spec,
      `model spec "${spec}" has no model id: write provider:model-id (providers: ${MODEL_PROVIDERS.join(", ")})${didYouMean(spec)}`,
    );
  }
  const model = providerModel(spec, provider, modelId, env);
  return withRetry(
    fromAiSdk(model, provider === "openai" ? { id: spec, providerOptions: OPENAI_OPTIONS } : { id: spec }),
    options.retry,
  );
}

function providerModel(
  spec: string,
  provider: string,
  modelId: string,
  env: Readonly<Record<string, string | undefined>>,
): LanguageModelV4 {
  switch (provider) {
    case "anthropic":
      return createAnthropic({
        apiKey: required(spec, env, "ANTHROPIC_API_KEY"),
        baseURL: optional(env, "ANTHROPIC_BASE_URL") ?? ANTHROPIC_DEFAULT_BASE_URL,
      })(modelId);
    case "openai":
      return createOpenAI({
        apiKey: required(spec, env, "OPENAI_API_KEY"),
        baseURL: optional(env, "OPENAI_BASE_URL") ?? OPENAI_DEFAULT_BASE_URL,
      })(modelId);
    case "openai-compatible": {
      const baseURL = required(spec, env, "OPENAI_COMPATIBLE_BASE_URL");
      const apiKey = optional(env, "OPENAI_COMPATIBLE_API_KEY");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        // Without it, OpenAI-compatible servers stream no usage and every turn would count 0 tokens.
        includeUsage: true,
        ...(apiKey === undefined ? {} : { apiKey }),
      })(modelId);
    }
    default:
      throw new ModelConfigError(
        spec,
        `unknown model provider "${provider}" in "${spec}": use one of ${MODEL_PROVIDERS.join(", ")}${didYouMean(spec)}`,
      );
  }
}

/**
 * "; did you mean …?" for a spec that is a known provider's but mistyped: the `provider/model`
 * form of other tools (`anthropic/claude-sonnet-4-5`), or a provider name off by a letter or two.
 * Empty when nothing close is known.
 */
function didYouMean(spec: string): string {
  const colon = spec.indexOf(":");
  const slash = spec.indexOf("/");
  // provider/model (no colon before the slash), else provider:model with the provider mistyped.
  const [provider, modelId] =
    slash > 0 && (colon < 0 || colon > slash)
      ? [spec.slice(0, slash), spec.slice(slash + 1)]
      : colon > 0
        ? [spec.slice(0, colon), spec.slice(colon + 1)]
        : [spec, ""];
  if (modelId === "") return "";
  const known = (MODEL_PROVIDERS as readonly string[]).includes(provider)
    ? provider
    : nearestName(provider, MODEL_PROVIDERS);
  return known === undefined ? "" : `; did you mean "${known}:${modelId}"?`;
}

function required(spec: string, env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = optional(env, name);
  if (value === undefined)
    throw new ModelConfigError(spec, `${name} is not set: set it to use the model ${spec}`, name);
  return value;
}

/** A variable's value; set-but-blank counts as unset (a common leftover of `export X=`). */
function optional(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * `@sema-agent/ai-sdk`: Sema's `Model` port for any AI SDK provider (LanguageModelV4), and
 * `resolveModel` for the `provider:model-id` specs the CLI and hosts accept, and the vendors' list
 * prices (`DEFAULT_PRICES`) for budgets.
 *
 * @module @sema-agent/ai-sdk
 */
export { abortedFailure, isRetryableStatus, parseRetryAfter, toFailure } from "./failure.ts";
export { type FromAiSdkOptions, fromAiSdk, toUsage } from "./from-ai-sdk.ts";
export { DEFAULT_PRICES } from "./prices.ts";
export { MODEL_PROVIDERS, ModelConfigError, type ResolveModelOptions, resolveModel } from "./resolve-model.ts";
export { toCallOptions, toPrompt } from "./to-call-options.ts";

/**
 * Which provider options a task's caller may set (issue 29, finding 3). A task's `providerOptions`
 * reach the provider's request body as they are: `@ai-sdk/openai-compatible` spreads them over
 * the body it built, so `model`, `n` or `max_tokens` there would swap the model (priced as the
 * configured one), multiply the completions or pass the budget's output clamp. A host refuses
 * every key an agent's `callerProviderOptions` does not list, and no list may name a reserved key.
 */
import { z } from "zod";

// Normalised: lower case, without `_` and `-`, so `max_tokens`, `maxTokens` and `max-tokens` are one key.
const RESERVED = new Set([
  // Which model answers.
  "model",
  "modelid",
  // How many completions are paid for.
  "n",
  "bestof",
  "candidatecount",
  "numcompletions",
  // The output limit the budget computed (`maxOutputTokens` of the request).
  "maxtokens",
  "maxcompletiontokens",
  "maxoutputtokens",
  "maxnewtokens",
  "numpredict",
  // Usage is read from the stream: without it a turn would count no tokens.
  "stream",
  "streamoptions",
  "includeusage",
  // What the request says: Sema builds these, byte for byte.
  "messages",
  "prompt",
  "system",
  "tools",
  "toolchoice",
]);

/**
 * True for a provider option key no caller (and no allowlist) may set: one that would choose the
 * model, the number of completions, the output limit, the streaming of usage, or the prompt and
 * tools Sema builds. Matched without case, `_` or `-` (`max_tokens`, `maxTokens`).
 */
export function isReservedProviderOption(key: string): boolean {
  return RESERVED.has(key.toLowerCase().replace(/[-_]/g, ""));
}

/**
 * The provider option keys a task's caller may set, by provider name (`{ "openai-compatible":
 * ["reasoning_effort"] }`): an allowlist the operator writes on the agent, empty by default. A
 * reserved key (see {@link isReservedProviderOption}) is refused in it.
 */
export const callerProviderOptionsSchema = z.record(
  z.string().min(1),
  z
    .array(
      z
        .string()
        .min(1)
        .refine((key) => !isReservedProviderOption(key), {
          error: (issue) =>
            `${JSON.stringify(issue.input)} is reserved: a caller may not choose the model, the number of completions, the output limit or the request's messages and tools`,
        }),
    )
    .readonly(),
);
/** The provider option keys a task's caller may set, by provider (see {@link callerProviderOptionsSchema}). */
export type CallerProviderOptions = z.infer<typeof callerProviderOptionsSchema>;

/** A provider option a caller gave that it may not: where it is and why. */
export interface ProviderOptionRefusal {
  /** `<provider>.<key>` (or `<provider>` when the provider's options are not an object). */
  path: string;
  message: string;
}

/**
 * The first provider option in `given` (a task's `providerOptions`, from a caller) that `allowed`
 * does not list, or that is reserved whatever the list says; undefined when every key is allowed.
 */
export function refusedProviderOption(
  given: Readonly<Record<string, unknown>>,
  allowed: CallerProviderOptions | undefined,
): ProviderOptionRefusal | undefined {
  for (const [provider, options] of Object.entries(given)) {
    if (typeof options !== "object" || options === null || Array.isArray(options))
      return { path: provider, message: "must be an object of options" };
    const keys: readonly string[] =
      (allowed !== undefined && Object.hasOwn(allowed, provider) && allowed[provider]) || [];
    for (const key of Object.keys(options)) {
      if (isReservedProviderOption(key))
        return {
          path: `${provider}.${key}`,
          message: `${JSON.stringify(key)} is reserved: the model, the number of completions and the output limit are the agent's, never a caller's`,
        };
      if (!keys.includes(key))
        return {
          path: `${provider}.${key}`,
          message:
            keys.length === 0
              ? `the agent allows no ${JSON.stringify(provider)} option from a caller (callerProviderOptions)`
              : `the agent allows only ${keys.map((k) => JSON.stringify(k)).join(", ")} for ${JSON.stringify(provider)} from a caller (callerProviderOptions)`,
        };
    }
  }
  return undefined;
}

/**
 * `options` without its reserved keys, per provider (the same object when it has none): what a
 * model adapter sends whatever reached it, so no task setting, from whichever process, overrides
 * the model, the completions or the output limit.
 */
export function withoutReservedProviderOptions<T extends Readonly<Record<string, unknown>>>(
  options: Readonly<Record<string, T>>,
): Readonly<Record<string, T>> {
  let out: Record<string, T> | undefined;
  for (const [provider, values] of Object.entries(options)) {
    if (!Object.keys(values).some(isReservedProviderOption)) continue;
    out ??= { ...options };
    out[provider] = Object.fromEntries(Object.entries(values).filter(([key]) => !isReservedProviderOption(key))) as T;
  }
  return out ?? options;
}

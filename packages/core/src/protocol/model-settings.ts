/**
 * The model settings, said once: how a model call samples, how long it may answer, which tools it
 * must call and what goes to the provider as it is. The agent's defaults, a task's settings
 * (recorded on `task_created` v 2), the options of `startTask` and `run`, the model request and
 * the AI SDK adapter's call options all take their keys and types from {@link modelSettingsSchema},
 * and {@link mergeModelSettings} is the one rule that layers them. A new setting is one line here
 * (and its mapping in a model adapter, which the compiler asks for).
 */
import { z } from "zod";
import { jsonObjectSchema } from "./json.ts";

/**
 * How the model picks tools: `auto` (it decides), `none` (no tool), `required` (some tool), or one
 * named tool. The AI SDK's own form, so a name can never be mistaken for a mode.
 */
export const toolChoiceSchema = z.union([
  z.enum(["auto", "none", "required"]),
  z.strictObject({ type: z.literal("tool"), toolName: z.string().min(1) }),
]);
/** How the model picks tools (see {@link toolChoiceSchema}). */
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

/** Options passed through to providers, keyed by provider name (`{ openai: { … } }`). */
export const providerOptionsSchema = z.record(z.string(), jsonObjectSchema);
/** Options passed through to providers, keyed by provider name (see {@link providerOptionsSchema}). */
export type ProviderOptions = z.infer<typeof providerOptionsSchema>;

/**
 * Every model setting, each optional and, when set, never `undefined`. Where they are recorded
 * (`task_created.settings`) this is part of the log's wire shape: a setting is only ever added,
 * as an optional key, so every recorded event still parses.
 */
export const modelSettingsSchema = z
  .strictObject({
    /** Sampling temperature; its range depends on the provider and the model. */
    temperature: z.number(),
    /** Nucleus sampling: the share of probability mass the next token is drawn from. */
    topP: z.number(),
    /** The most tokens one model call may generate (a budget may clamp a call's lower). */
    maxOutputTokens: z.number().int().positive(),
    /** The model stops when it generates one of these. */
    stopSequences: z.array(z.string()),
    /** An integer, for providers that sample deterministically with one. */
    seed: z.number().int(),
    /**
     * Lowers the odds of a token by how often it already appears, against repeated words (OpenAI:
     * −2 to 2). Providers without it (Anthropic, OpenAI's Responses API) ignore it with a warning.
     */
    frequencyPenalty: z.number(),
    /**
     * `auto` (default), `none`, `required` or `{ type: "tool", toolName }` (a tool the agent has;
     * a leg fails the task if it lacks it). A forced choice (`required`, a named tool) holds until
     * the model has called a tool after the latest user message; later calls use `auto`, so the
     * agent can still finish.
     */
    toolChoice: toolChoiceSchema,
    /**
     * Passed through to the provider, keyed by provider name (`{ openai: { store: false } }`). A
     * reserved key (`model`, `n`, `max_tokens` …: `isReservedProviderOption`) is refused in
     * an agent's and dropped by the model adapter: the model and the output limit have fields of
     * their own. The agent's and a task's merge per provider, the task's keys winning.
     */
    providerOptions: providerOptionsSchema,
  })
  .exactPartial();

/** The model settings (see {@link modelSettingsSchema}): each optional, never `undefined` when present. */
export type ModelSettings = z.infer<typeof modelSettingsSchema>;

/** The name of a model setting. */
export type ModelSettingKey = keyof ModelSettings;

/** Every model setting's name, in the schema's order: what code that copies settings iterates. */
export const MODEL_SETTING_KEYS: readonly ModelSettingKey[] = modelSettingsSchema.keyof().options;

/**
 * Provider options of `over` on top of those of `base`, per provider: `over`'s keys win within a
 * provider's options, and a provider only one side names keeps that side's. Either side alone is
 * returned as it is.
 */
export function mergeProviderOptions(
  base: ProviderOptions | undefined,
  over: ProviderOptions | undefined,
): ProviderOptions | undefined {
  if (base === undefined) return over;
  if (over === undefined) return base;
  const merged: ProviderOptions = { ...base };
  for (const [provider, options] of Object.entries(over)) merged[provider] = { ...base[provider], ...options };
  return merged;
}

/** Set `key` when `value` is present: a merged setting is absent rather than `undefined`. */
function setPresent<K extends ModelSettingKey>(to: ModelSettings, key: K, value: ModelSettings[K] | undefined): void {
  if (value !== undefined) to[key] = value;
}

/**
 * The settings of `over` on top of those of `base`, key by key: a setting `over` has wins, any
 * other is `base`'s (so `undefined` on either side counts as not set); `providerOptions` merge per
 * provider (see {@link mergeProviderOptions}). Only setting keys are read and written, so either
 * side may be a wider object (an `Agent`, a task's settings with their `output`). The layers are
 * the agent's defaults, then the task's recorded settings: every process that builds a task's
 * request from its log gets the same settings. They are written into `into` (a model request
 * being built, which saves a copy per model call) when given, else into a new object.
 */
export function mergeModelSettings(
  base: ModelSettings | undefined,
  over: ModelSettings | undefined,
  into: ModelSettings = {},
): ModelSettings {
  for (const key of MODEL_SETTING_KEYS) setPresent(into, key, over?.[key] ?? base?.[key]);
  const providerOptions = mergeProviderOptions(base?.providerOptions, over?.providerOptions);
  if (providerOptions !== undefined) into.providerOptions = providerOptions;
  return into;
}

/**
 * Sema's {@link ModelRequest} as LanguageModelV4 call options. Every transcript string is passed
 * byte for byte: framing and trust labels were applied when the entry was recorded, so this
 * mapping must neither add nor drop text.
 */
import type {
  JSONObject,
  JSONSchema7,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolChoice,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { JsonValue } from "@sema-agent/core";
import type { ModelRequest } from "@sema-agent/core/model-kit";
import {
  MODEL_SETTING_KEYS,
  type ModelSettingKey,
  type ModelSettings,
  type TranscriptEntry,
  type UserPart,
  withoutReservedProviderOptions,
} from "@sema-agent/core/protocol";

/**
 * Where each model setting goes in the V4 call options: `copy`, as it is under its own name, or
 * `mapped` by `toCallOptions` itself. Every setting has a line: a new one fails the compile here
 * until it is placed, rather than being dropped from every call without a word.
 */
const PLACES = {
  temperature: "copy",
  topP: "copy",
  maxOutputTokens: "copy",
  // Copied anew: what a provider does with the array cannot reach the request.
  stopSequences: "mapped",
  seed: "copy",
  frequencyPenalty: "copy",
  // V4's form, sent with the tools only.
  toolChoice: "mapped",
  // Over the adapter's own, without reserved keys.
  providerOptions: "mapped",
} as const satisfies Record<ModelSettingKey, "copy" | "mapped">;

/** The settings copied as they are. */
type Copied = { [K in ModelSettingKey]: (typeof PLACES)[K] extends "copy" ? K : never }[ModelSettingKey];
// A copied setting has V4's name and a type V4 takes: else this fails the compile.
const copiedFit: Required<Pick<ModelSettings, Copied>> extends Required<Pick<LanguageModelV4CallOptions, Copied>>
  ? true
  : false = true;
void copiedFit;

function isCopied(key: ModelSettingKey): key is Copied {
  return PLACES[key] === "copy";
}
const COPIED: readonly Copied[] = MODEL_SETTING_KEYS.filter(isCopied);

function copySetting<K extends Copied>(
  options: LanguageModelV4CallOptions,
  key: K,
  value: LanguageModelV4CallOptions[K] | undefined,
): void {
  if (value !== undefined) options[key] = value;
}

/** The V4 call options for one request. `signal` is passed as the call's abort signal. */
export function toCallOptions(
  request: ModelRequest,
  signal: AbortSignal,
  providerOptions?: SharedV4ProviderOptions,
): LanguageModelV4CallOptions {
  const options: LanguageModelV4CallOptions = { prompt: toPrompt(request), abortSignal: signal };
  if (request.tools.length > 0) {
    options.tools = request.tools.map(
      (tool): LanguageModelV4FunctionTool => ({
        type: "function",
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
      }),
    );
    options.toolChoice = toToolChoice(request.toolChoice);
  }
  for (const key of COPIED) copySetting(options, key, request[key]);
  if (request.stopSequences !== undefined) options.stopSequences = [...request.stopSequences];
  if (request.responseFormat !== undefined) {
    const { schema, name, description } = request.responseFormat;
    options.responseFormat = { type: "json", schema: schema as JSONSchema7 };
    if (name !== undefined) options.responseFormat.name = name;
    if (description !== undefined) options.responseFormat.description = description;
  }
  const merged = mergeProviderOptions(providerOptions, request.providerOptions);
  if (merged !== undefined) options.providerOptions = merged;
  return options;
}

/** Sema's tool choice in V4's form; absent means `auto`, as before settings existed. */
function toToolChoice(choice: ModelRequest["toolChoice"]): LanguageModelV4ToolChoice {
  if (choice === undefined || choice === "auto") return { type: "auto" };
  if (choice === "none" || choice === "required") return { type: choice };
  return { type: "tool", toolName: choice.toolName };
}

/**
 * The adapter's options, then the request's (the agent's and the task's recorded ones) on top, per
 * provider. The request's reserved keys (`model`, `n`, `max_tokens` …) are dropped: whatever a task
 * recorded, the model is this adapter's, one completion is asked for and the output limit is
 * `maxOutputTokens`, the one the budget clamps (issue 29, finding 3). The adapter's own options
 * are the host's code and pass as given.
 */
function mergeProviderOptions(
  adapter: SharedV4ProviderOptions | undefined,
  request: ModelRequest["providerOptions"],
): SharedV4ProviderOptions | undefined {
  if (request === undefined) return adapter;
  const merged: SharedV4ProviderOptions = { ...adapter };
  for (const [provider, options] of Object.entries(withoutReservedProviderOptions(request))) {
    merged[provider] = { ...adapter?.[provider], ...(options as JSONObject) };
  }
  return merged;
}

/** The V4 prompt: the system message, then the transcript in order. */
export function toPrompt(request: ModelRequest): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  // Vendors reject an empty system block (Anthropic: "text content blocks must be non-empty").
  if (request.system !== "") prompt.push({ role: "system", content: request.system });
  for (const entry of request.transcript) {
    const message = toMessage(entry, request.blobs);
    if (message === undefined) continue;
    const last = prompt.at(-1);
    // Consecutive tool results answer one assistant turn: one tool message keeps them together
    // (Anthropic needs every result of a turn in the single user message that follows it).
    if (message.role === "tool" && last?.role === "tool") last.content.push(...message.content);
    else prompt.push(message);
  }
  return prompt;
}

/**
 * Vendors take a tool call's input back only as an object (Anthropic answers 400 to anything
 * else). Arguments that were not a JSON object — malformed text, a bare value — are replayed
 * wrapped, so the model still sees what it sent next to the error its tool returned.
 */
export function replayableInput(input: JsonValue): JsonValue {
  return typeof input === "object" && input !== null && !Array.isArray(input) ? input : { invalid_arguments: input };
}

/**
 * A user entry's parts as V4 user content: the text parts byte for byte, each attachment as a V4
 * file part (images included: V4 has one file part with a media type) carrying the bytes the
 * request resolved from the store, or its URL. A blob the request lacks is a bug in the caller,
 * reported rather than sent as something else.
 */
function userContent(
  parts: readonly UserPart[],
  blobs: ReadonlyMap<string, Uint8Array> | undefined,
): Extract<LanguageModelV4Message, { role: "user" }>["content"] {
  return parts.map((part) => {
    if (part.type === "text") return { type: "text", text: part.text };
    const filename = part.filename === undefined ? {} : { filename: part.filename };
    if ("url" in part)
      return { type: "file", mediaType: part.mediaType, data: { type: "url", url: new URL(part.url) }, ...filename };
    const bytes = blobs?.get(part.digest);
    if (bytes === undefined) throw new Error(`the request carries no bytes for blob ${part.digest}`);
    return { type: "file", mediaType: part.mediaType, data: { type: "data", data: bytes }, ...filename };
  });
}

/**
 * The first URL attachment of the request that the provider does not take as a URL (by its
 * `supportedUrls`: media type patterns such as `image/*` or `*`, each with URL patterns), if any.
 * Sema never fetches such a URL itself at request time; the ingress can (`fetchUrls`).
 */
export function unsupportedUrl(
  request: ModelRequest,
  supportedUrls: Record<string, RegExp[]>,
): { url: string; mediaType: string } | undefined {
  for (const entry of request.transcript) {
    if (entry.role !== "user" || entry.parts === undefined) continue;
    for (const part of entry.parts) {
      if (part.type === "text" || !("url" in part)) continue;
      if (!isUrlSupported(part.url, part.mediaType, supportedUrls)) return { url: part.url, mediaType: part.mediaType };
    }
  }
  return undefined;
}

function isUrlSupported(url: string, mediaType: string, supportedUrls: Record<string, RegExp[]>): boolean {
  const type = mediaType.toLowerCase();
  const top = type.split("/")[0] ?? type;
  for (const [pattern, regexes] of Object.entries(supportedUrls)) {
    const key = pattern.toLowerCase();
    const matches =
      key === "*" ||
      key === "*/*" ||
      key === type ||
      ((key.endsWith("/*") || !key.includes("/")) && key.split("/")[0] === top);
    if (matches && regexes.some((regex) => regex.test(url))) return true;
  }
  return false;
}

function toMessage(
  entry: TranscriptEntry,
  blobs: ReadonlyMap<string, Uint8Array> | undefined,
): LanguageModelV4Message | undefined {
  switch (entry.role) {
    case "user":
      if (entry.parts !== undefined) return { role: "user", content: userContent(entry.parts, blobs) };
      return { role: "user", content: [{ type: "text", text: entry.content }] };
    case "assistant": {
      const content: Extract<LanguageModelV4Message, { role: "assistant" }>["content"] = [];
      // Reasoning first, as the model produced it. Providers that need a signature to replay
      // reasoning (Anthropic) drop an unsigned one with a warning rather than failing the call.
      if (entry.reasoning !== undefined && entry.reasoning !== "") {
        content.push({ type: "reasoning", text: entry.reasoning });
      }
      if (entry.text !== "") content.push({ type: "text", text: entry.text });
      for (const call of entry.toolCalls) {
        content.push({
          type: "tool-call",
          toolCallId: call.callId,
          toolName: call.name,
          input: replayableInput(call.input),
        });
      }
      // An assistant turn that said nothing has nothing to replay, and vendors reject empty content.
      return content.length === 0 ? undefined : { role: "assistant", content };
    }
    case "tool":
      return { role: "tool", content: [toToolResult(entry)] };
  }
}

function toToolResult(entry: Extract<TranscriptEntry, { role: "tool" }>): LanguageModelV4ToolResultPart {
  // Denied and interrupted calls are errors too, and the content already says why in exactly the
  // words the model must see: `execution-denied` would let each provider substitute its own text.
  return {
    type: "tool-result",
    toolCallId: entry.callId,
    toolName: entry.name,
    output:
      entry.status === "ok" ? { type: "text", value: entry.content } : { type: "error-text", value: entry.content },
  };
}

/**
 * The adapter from any AI SDK provider model (LanguageModelV4) to Sema's `Model` port.
 */
import type {
  LanguageModelV4,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import type { Model, Usage } from "@sema-agent/core";
import type { ModelFailure, ModelPart, ModelRequest } from "@sema-agent/core/model-kit";
import type { FinishReason } from "@sema-agent/core/protocol";
import { abortedFailure, toFailure } from "./failure.ts";
import { toCallOptions, unsupportedUrl } from "./to-call-options.ts";

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions {
  /** The id recorded with each task (`provider:model-id`). Defaults to `${model.provider}:${model.modelId}`. */
  id?: string;
  /** Provider-specific options passed on every call (`{ anthropic: { … } }`, `{ openai: { … } }`). */
  providerOptions?: SharedV4ProviderOptions;
}

/**
 * Adapt an AI SDK provider model to Sema's {@link Model} port.
 *
 * The returned model calls `doStream` once per `stream()` and maps every V4 stream part to a
 * {@link ModelPart}. It never throws or rejects: a failed call, an `error` part, a stream that
 * errors, ends without a `finish` part or finishes as `interrupted`, and an abort all end the
 * stream with one `{ type: "error", failure }` part (see `failure.ts` for the codes).
 */
export function fromAiSdk(model: LanguageModelV4, options: FromAiSdkOptions = {}): Model {
  const id = options.id ?? `${model.provider}:${model.modelId}`;
  const { providerOptions } = options;
  return {
    id,
    stream: (request, signal) => streamModel(model, request, signal, providerOptions),
  };
}

/** What one V4 part becomes: parts to yield, and whether the stream is over. */
type Mapped = { parts: ModelPart[]; done: boolean };

const SKIP: Mapped = { parts: [], done: false };

async function* streamModel(
  model: LanguageModelV4,
  request: ModelRequest,
  signal: AbortSignal,
  providerOptions: SharedV4ProviderOptions | undefined,
): AsyncGenerator<ModelPart, void, undefined> {
  if (signal.aborted) {
    yield failed(abortedFailure());
    return;
  }
  const refused = await refusedContent(model, request);
  if (refused !== undefined) {
    yield failed(refused);
    return;
  }
  let stream: ReadableStream<LanguageModelV4StreamPart>;
  try {
    // Raced with the signal: a provider that ignores `abortSignal` must not hang an aborted call.
    const result = await raceAbort(
      Promise.resolve().then(() => model.doStream(toCallOptions(request, signal, providerOptions))),
      signal,
    );
    stream = result.stream;
  } catch (error) {
    yield failed(toFailure(error, signal));
    return;
  }

  const reader = stream.getReader();
  // Cancelling the reader on abort settles a pending read even when the provider's stream would
  // never notice the signal; the read then ends and the loop reports `aborted`.
  const onAbort = () => {
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        yield failed(toFailure(error, signal));
        return;
      }
      if (signal.aborted) {
        yield failed(abortedFailure());
        return;
      }
      if (next.done) {
        yield failed({
          code: "malformed_response",
          message: "the model stream ended without a finish part",
          isRetryable: true,
        });
        return;
      }
      const mapped = mapPart(next.value, signal);
      for (const part of mapped.parts) yield part;
      if (mapped.done) return;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Releases the HTTP response when we stop early (finish, error, or the consumer broke off).
    reader.cancel().catch(() => {});
  }
}

/**
 * Content the provider cannot take, as a failure that is not retried: a URL attachment it does
 * not accept as a URL (by `supportedUrls`). Checked before the call, so nothing half-sent.
 */
async function refusedContent(model: LanguageModelV4, request: ModelRequest): Promise<ModelFailure | undefined> {
  if (!request.transcript.some((entry) => entry.role === "user" && entry.parts !== undefined)) return undefined;
  let supported: Record<string, RegExp[]>;
  try {
    supported = await model.supportedUrls;
  } catch {
    supported = {};
  }
  const url = unsupportedUrl(request, supported);
  if (url === undefined) return undefined;
  return {
    code: "bad_request",
    message: `${model.provider} does not take ${url.mediaType} by URL (${url.url}): send the bytes, or let the ingress fetch it (fetchUrls)`,
    isRetryable: false,
  };
}

function mapPart(part: LanguageModelV4StreamPart, signal: AbortSignal): Mapped {
  switch (part.type) {
    case "text-start":
    case "text-end":
    case "reasoning-start":
    case "reasoning-end":
    case "tool-input-end":
      return one({ type: part.type, id: part.id });
    case "text-delta":
    case "reasoning-delta":
    case "tool-input-delta":
      return one({ type: part.type, id: part.id, delta: part.delta });
    case "tool-input-start":
      // Provider-executed tools run on the vendor's side; the harness has nothing to run. Sema
      // never offers provider tools, so this only guards against a provider volunteering one.
      if (part.providerExecuted === true) return SKIP;
      return one({ type: "tool-input-start", id: part.id, toolName: part.toolName });
    case "tool-call":
      if (part.providerExecuted === true) return SKIP;
      return one({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    case "finish": {
      if (part.finishReason.unified === "interrupted") {
        // The provider saw the stream end without the vendor's completion signal: the output may
        // be cut short, which is not a turn the harness should record as finished.
        return last(
          failed({
            code: "malformed_response",
            message: "the model stream ended without a completion signal",
            isRetryable: true,
          }),
        );
      }
      return last({
        type: "finish",
        usage: toUsage(part.usage),
        finishReason: toFinishReason(part.finishReason.unified),
      });
    }
    case "error":
      return last(failed(toFailure(part.error, signal)));
    default:
      // stream-start, response-metadata, ping, raw, sources, files, custom content, provider tool
      // results and approval requests carry nothing the Model port has words for.
      return SKIP;
  }
}

/** The V4 unified reason in Sema's union; a reason added to V4 later reads as `other`. */
function toFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "content-filter":
    case "tool-calls":
    case "error":
      return reason;
    default:
      return "other";
  }
}

/** V4 usage (nested, every count optional) to Sema's flat usage; absent counts are left out. */
export function toUsage(usage: LanguageModelV4Usage): Usage {
  const input = usage.inputTokens;
  const output = usage.outputTokens;
  const result: Usage = {
    inputTokens: input.total ?? sumDefined(input.noCache, input.cacheRead, input.cacheWrite),
    outputTokens: output.total ?? sumDefined(output.text, output.reasoning),
  };
  if (input.cacheRead !== undefined) result.cachedInputTokens = input.cacheRead;
  if (output.reasoning !== undefined) result.reasoningTokens = output.reasoning;
  return result;
}

function sumDefined(...counts: (number | undefined)[]): number {
  return counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
}

function one(part: ModelPart): Mapped {
  return { parts: [part], done: false };
}

function last(part: ModelPart): Mapped {
  return { parts: [part], done: true };
}

function failed(failure: ModelFailure): ModelPart {
  return { type: "error", failure };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) {
          // The call completed after the abort won the race: nobody will read this stream.
          cancelQuietly(value);
          return;
        }
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function cancelQuietly(value: unknown): void {
  const stream = (value as { stream?: unknown } | null)?.stream;
  if (stream instanceof ReadableStream) stream.cancel().catch(() => {});
}

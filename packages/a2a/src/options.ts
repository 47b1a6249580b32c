/**
 * What `delegateA2A` accepts, checked once where it is given (a strict zod object): a
 * `ConfigError` names every problem and unknown key before any tool exists.
 */
import { checkConfig, functionSchema } from "@sema-agent/core/protocol";
import { z } from "zod";

/** A bearer token, or a function that returns the current one (called for every request). */
export type A2AToken = string | (() => string | Promise<string>);

/** The two A2A bindings this client speaks over HTTP. */
export type A2ATransport = "JSONRPC" | "HTTP+JSON";

/** What the remote agent reports while it works, for hosts and consoles. */
export interface A2AProgress {
  /** The remote task's id. */
  remoteTaskId: string;
  /** Its A2A state, lower-case: `submitted`, `working`, `input-required`, `completed` … */
  state: string;
  /** The text of the status message that came with it, when there was one. */
  text?: string;
}

/** Options of {@link delegateA2A}. */
export interface DelegateA2AOptions<Name extends string = string> {
  /**
   * The remote agent's base URL: its card is read from `<url>/.well-known/agent-card.json`
   * (change with `cardPath`). http or https.
   */
  url: string;
  /** Sent as `Authorization: Bearer <token>` with every request, the card's included. */
  token?: A2AToken;
  /** The tool's name (default `delegate_a2a`): one tool per remote agent, each named apart. */
  name?: Name;
  /** What the model is told the tool does (default: a sentence naming the agent's URL). */
  description?: string;
  /** Where the card is, relative to `url` (default `/.well-known/agent-card.json`; `""`: `url` is the card). */
  cardPath?: string;
  /** The bindings to prefer, in order (default: the card's own order). */
  transports?: A2ATransport[];
  /** How long one call may wait for the remote task, in milliseconds (default 10 minutes). */
  timeoutMs?: number;
  /** Ask a person before each delegation (the harness's approvals). */
  needsApproval?: boolean;
  /** Called with each state change the remote agent reports (never fails the call). */
  onProgress?: (progress: A2AProgress) => void;
  /** The `fetch` the client uses (default: the global one). */
  fetch?: typeof fetch;
}

/** The default time one delegation may take. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

const httpUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  },
  { error: "must be an absolute http(s) URL, e.g. https://agent.example.com" },
);

const optionsSchema = z.strictObject({
  url: httpUrl,
  token: z.union([z.string().min(1, { error: "must not be empty" }), functionSchema<() => string>("token")]).optional(),
  name: z.string().optional(),
  description: z.string().min(1).optional(),
  cardPath: z.string().optional(),
  transports: z
    .array(z.enum(["JSONRPC", "HTTP+JSON"]))
    .min(1)
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  needsApproval: z.boolean().optional(),
  onProgress: functionSchema<(progress: A2AProgress) => void>("onProgress").optional(),
  fetch: functionSchema<typeof fetch>("fetch").optional(),
});

/** Check `options` (throws a `ConfigError` naming each problem). */
export function checkOptions<Name extends string>(options: DelegateA2AOptions<Name>): void {
  checkConfig(optionsSchema, options, "delegateA2A");
}

/**
 * Tools: typed functions the model may call (design §6). Define one with `defineTool`, which checks
 * the definition and derives the JSON Schema the model sees from the input schema.
 */
import type { JsonValue } from "../protocol/json.ts";
import type { ReaderFieldKind, ToolEffects } from "../protocol/provenance.ts";
import type { Usage } from "../protocol/usage.ts";
import type { ModelRequest } from "./model.ts";
import type { StandardSchemaV1 } from "./standard-schema.ts";

/** What a tool's `execute` gets besides its input. */
export interface ToolContext {
  /** Aborted on interrupt, cancel, lease loss or the tool's timeout: stop promptly. */
  signal: AbortSignal;
  /** The task the call belongs to. */
  taskId: string;
  legId: string;
  callId: string;
  /** 1 for the first run; higher when an idempotent tool is re-run after a crash. */
  attempt: number;
  /** The task's principal: whose authority the call runs on. */
  principal: string;
  /**
   * On a re-run after a crash: the last value this call recorded with {@link ToolContext.checkpoint}
   * (absent when it recorded none). A long tool resumes from it (reattaches to the remote job it
   * started) instead of starting over.
   */
  lastCheckpoint?: JsonValue;
  /**
   * Record `data` (JSON, at most 16,384 characters as JSON text) in the task's log
   * as a `tool_checkpoint` event; resolves once it is durable. Await it before the step it
   * protects: a remote job's id recorded before waiting on the job means a crash reattaches rather
   * than starting the job twice. Present when the tool runs in a leg; rejects once the call has
   * settled (timed out, interrupted, returned).
   */
  checkpoint?: (data: JsonValue) => Promise<void>;
  /**
   * The W3C `traceparent` of this call's span, when the host traces (`HarnessOptions.traceparentOf`):
   * a tool that calls another service sends it, so the remote work joins this task's trace. Absent
   * when the host gave none; send nothing then.
   */
  traceparent?: string;
  /**
   * Before a model call the tool makes itself (a quarantined reader's): fit `request` to what is
   * left of the task's budget, clamping its `maxOutputTokens`; the text of the limit it would
   * cross when it cannot fit at all (then do not call). Present when the tool runs in a leg.
   */
  fitModelCall?: (request: ModelRequest) => string | undefined;
  /**
   * Count what a model call the tool made cost (`model`: its id): recorded on the call's
   * `tool_result` (v 2) and counted in the task's usage, budget and quotas like a model turn's.
   * Present when the tool runs in a leg.
   */
  reportUsage?: (usage: Usage, model: string) => void;
}

/** What an approval check knows besides the input. */
export interface ApprovalContext {
  taskId: string;
  callId: string;
  /** The task's principal: whose authority the call would run on. */
  principal: string;
}

/**
 * A per-input approval check. Declared through a method so a tool with a specific input type is
 * still a `Tool` (method parameters are bivariant; a plain function property would not be).
 */
export type ApprovalCheck<Input> = {
  /** True when this call, with its validated input, needs a person's approval before it runs. */
  check(input: Input, context: ApprovalContext): boolean | Promise<boolean>;
}["check"];

/** A tool's result: a string reaches the model as is; anything else as JSON. */
export type ToolOutput = string | JsonValue;

/**
 * A tool. `Name` keeps the literal name `defineTool` was given, so an agent's hooks can be typed by
 * its tools (`createAgent`); code that takes any tool uses the defaults.
 */
export interface Tool<Input = unknown, Name extends string = string> {
  name: Name;
  description: string;
  /** Validates the model's arguments; input that fails never reaches `execute`. */
  inputSchema: StandardSchemaV1<unknown, Input>;
  /** The JSON Schema shown to the model (derived by `defineTool` for zod schemas). */
  jsonSchema: { [key: string]: JsonValue };
  /**
   * Run the call with its validated input. A string result reaches the model as is, anything else
   * as JSON; a throw becomes an `error` result the model sees. Stop promptly when `context.signal`
   * aborts (interrupt, cancel, timeout).
   */
  execute(input: Input, context: ToolContext): Promise<ToolOutput> | ToolOutput;
  /** No side effects: may run concurrently with the turn's other read-only calls. */
  readOnly?: boolean;
  /** Running it twice with the same input has the effect of running it once: re-run after a crash. */
  idempotent?: boolean;
  /** Abort `execute` after this long (default: the harness's tool timeout). */
  timeoutMs?: number;
  /** Its output is third-party text (a web page, a file, an API): fenced as untrusted for the model. */
  untrustedOutput?: boolean;
  /**
   * What a call can do, for the agent's provenance policy (docs/guide/security.md): `none` (reads
   * only), `local` (changes local state: files, a database), `external` (sends or spends outside:
   * mail, payments, requests to other services). Default: `none` when `readOnly`, else `local`.
   */
  effects?: ToolEffects;
  /**
   * A call reaches the network with its arguments (a page fetcher, an HTTP API, a remote agent, an
   * MCP server): a tainted call is then held by the policy's egress rule whatever its `effects`,
   * since a read can carry data out in its URL (docs/guide/security.md "Egress"). Default false.
   */
  egress?: boolean;
  /**
   * The hosts every call of an egress tool reaches whatever its arguments (a remote agent's, an
   * HTTP MCP server's), judged with the hosts its arguments name against the egress allowlist.
   */
  egressHosts?: readonly string[];
  /**
   * Input values the provenance policy does not count as tainted, as JSON Pointers (`/taskId`):
   * identifiers the tool's own output hands the model to pass back (a remote task's id), which
   * come from untrusted output by design. Every other argument is classified as usual.
   */
  untaintedInputs?: readonly string[];
  /**
   * This tool is a quarantined reader (`quarantinedReader`, docs/guide/security.md "Quarantined
   * reading"): its output is the JSON answer of one tool-less model call, with these fields. The
   * policy names its result as the source of what it carries, and trusts its closed fields'
   * values as `ProvenancePolicy.quarantine` says. Set by `quarantinedReader`.
   */
  readerFields?: { readonly [field: string]: ReaderFieldKind };
  /** Results longer than this (in characters) are truncated with a note (default: the harness's cap). */
  maxOutputChars?: number;
  /**
   * Ask a person before running it: always, or when this returns true for the (validated) input.
   * The task parks until the call is decided; an approved call runs with a deep-frozen copy of
   * exactly the input that was approved.
   */
  needsApproval?: boolean | ApprovalCheck<Input>;
}

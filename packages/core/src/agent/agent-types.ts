/**
 * The types of `createAgent`'s handle: the definition (an agent, its store, its host settings, the
 * schema of its answer), what `run` takes and gives back, and hooks typed by the agent's tools.
 */
import type { Agent, HarnessOptions } from "../harness/agent.ts";
import type { BeforeToolDecision, HookContext, Hooks } from "../harness/hooks/hooks.ts";
import type { SentInput } from "../harness/tasks/send-input.ts";
import type { CanApprove, Decision } from "../harness/tools/approvals.ts";
import type { InferOutput, StandardSchemaV1 } from "../ports/standard-schema.ts";
import type { Store } from "../ports/store.ts";
import type { Tool } from "../ports/tool.ts";
import type { ContentPart } from "../protocol/content.ts";
import type { SemaError } from "../protocol/errors.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { ModelSettings } from "../protocol/model-settings.ts";
import type { CallProvenance } from "../protocol/provenance.ts";
import type { StreamEvent } from "../protocol/stream-event.ts";
import type { ParkReason } from "../protocol/task-event.ts";
import type { TaskStatus } from "../protocol/task-summary.ts";
import type { ActorAssertion, ToolResultStatus } from "../protocol/transcript.ts";
import type { Usage } from "../protocol/usage.ts";

/**
 * A call of one of the tools `T` as a typed hook sees it: a union over the tools, each arm with
 * the tool's literal name and its validated input (`{ name: "add"; input: { a: number; b: number } } | …`).
 */
export type ToolCallOf<T extends Tool> =
  T extends Tool<infer Input, infer Name>
    ? { readonly callId: string; readonly name: Name; readonly input: Input }
    : never;

/**
 * The agent's hooks, with `beforeTool` and `afterTool` typed by its tools. The handle calls them
 * only for a call of one of those tools whose input passed the tool's schema (with the validated
 * input); any other call (an unknown tool, input the schema refuses) is not shown to them and
 * fails as it always does.
 */
export type AgentHooks<T extends Tool = Tool> = Omit<Hooks, "beforeTool" | "afterTool"> & {
  /** Before a call runs: allow, deny, ask a person, or replace its input. */
  beforeTool?(
    context: HookContext & { readonly call: ToolCallOf<T> },
  ): BeforeToolDecision | undefined | Promise<BeforeToolDecision | undefined>;
  /** After a call ran: return `content` to replace what the model will be told. */
  afterTool?(
    context: HookContext & {
      readonly call: ToolCallOf<T>;
      readonly result: { readonly status: ToolResultStatus; readonly content: string };
    },
  ): { content?: string } | undefined | Promise<{ content?: string } | undefined>;
};

/** The host settings of a handle: the harness's, without the store and the agent it is given. */
export type AgentHostOptions = Omit<HarnessOptions, "store" | "agent">;

/**
 * What `createAgent` takes: the agent (model, instructions, tools, hooks, limits…), the store its
 * tasks live in, the host settings of the legs it runs, and the schema of its final answer.
 */
export type AgentDefinition<
  Tools extends readonly Tool[] = readonly Tool[],
  Output extends StandardSchemaV1 | undefined = StandardSchemaV1 | undefined,
> = Omit<Agent, "tools" | "hooks" | "output"> &
  AgentHostOptions & {
    tools?: Tools;
    /** Hooks, `beforeTool` / `afterTool` typed by `tools` (see {@link AgentHooks}). */
    hooks?: AgentHooks<Tools[number]>;
    /** Where the tasks live. Default: a new `MemoryStore` (gone with the process). */
    store?: Store;
    /** The schema of the final answer (any Standard Schema): `RunResult.output` is typed by it. */
    output?: Output;
    /** Who may decide an approval through `approve` / `deny`; default `defaultCanApprove`. */
    canApprove?: CanApprove;
  };

/** `RunResult.output`'s type for a schema (nothing without one). */
export type OutputOf<S> = S extends StandardSchemaV1 ? InferOutput<S> : undefined;

/** An approval that waits for a person, as `parked.approvals` and `approvals()` list it. */
export interface PendingApproval {
  /** The task whose call it is: the task itself, or a child it waits for. */
  taskId: string;
  callId: string;
  toolName: string;
  /** The input to be approved, as recorded (parsed from its canonical JSON). */
  input: JsonValue;
  /** The SHA-256 of the input's canonical JSON: what a decision is bound to. */
  digest: string;
  /** Why the provenance policy held the call, when it did: the spans the arguments came from. */
  provenance?: CallProvenance;
}

/** One tool call of a step, with its result once it has one. */
export interface RunToolCall {
  callId: string;
  name: string;
  input: JsonValue;
  result?: { status: ToolResultStatus; content: string };
}

/** One model turn of the task: what it said and the tool calls it made, with their results. */
export interface RunStep {
  text: string;
  reasoning?: string;
  toolCalls: RunToolCall[];
}

/** Where a task stands after `run` / `continue`, read from the log. */
export interface RunResult<Output = unknown> {
  taskId: string;
  status: TaskStatus;
  /** The final assistant text (the result when completed; else the latest turn's text, or ""). */
  text: string;
  /** The final answer parsed as JSON and validated by the output schema; undefined without one or unless completed. */
  output: Output | undefined;
  /** Tokens used by the task over all its legs, its children's included. */
  usage: Usage;
  /** The model turns in the task's transcript (a compaction replaces older ones by its summary). */
  steps: RunStep[];
  /** Set when the task parked: what it waits for, and every approval pending for it or its children. */
  parked?: { reason: ParkReason; approvals: PendingApproval[] };
  /** Why it failed (the code and message its `task_failed` records), or why its answer did not validate. */
  error?: SemaError;
}

/**
 * Options of `run` and `stream`, with this task's model settings (every key of `ModelSettings`):
 * recorded on `task_created`, they win over the definition's.
 */
export interface RunOptions<Output extends StandardSchemaV1 | undefined = undefined> extends ModelSettings {
  /** Who typed the input (recorded on the objective). */
  actor?: ActorAssertion;
  /** Whose authority the task runs on. Default `"local"`. */
  principal?: string;
  /** Aborting parks the task (`parked:interrupt`), as `interrupt` does; `continue` runs it on. */
  signal?: AbortSignal;
  /**
   * An idempotent start: if a task with this id exists, no second one is started — the call
   * continues that task (runs its next legs if it has work) and returns its result; `input` is
   * then ignored.
   */
  taskId?: string;
  /** Validate this run's answer with this schema instead of the definition's. */
  output?: Output;
  /** Recorded on `task_created`. */
  metadata?: { [key: string]: JsonValue };
}

/** What `run`, `stream` and `send` take: text, or content parts (text, images, files). */
export type AgentInput = string | readonly ContentPart[];

/** Options of `continue`. */
export interface ContinueOptions<Output extends StandardSchemaV1 | undefined = undefined> {
  /** Aborting parks the task (`parked:interrupt`). */
  signal?: AbortSignal;
  /** Validate the answer with this schema instead of the definition's. */
  output?: Output;
}

/** Options of `send`. */
export interface SendOptions {
  actor?: ActorAssertion;
  /** An idempotency key: a retried send with the same id is recorded once. */
  inputId?: string;
}

/** Options of `approve` and `deny`. */
export interface ApproveOptions {
  /** Who decides; the default rule wants a verified actor. */
  actor: ActorAssertion;
  reason?: string;
  /**
   * The digest the person was shown: the decision is refused (`DigestMismatch`) unless it is the
   * pending call's. Without it the handle uses the pending call's own digest.
   */
  digest?: string;
  /** The principal the decider is authenticated as. Default: the task's own principal. */
  principal?: string;
  /** `approve` only: `tool-for-task` also allows later calls of this tool in this task. */
  scope?: "call" | "tool-for-task";
}

/** A run as it happens: its events (stored and ephemeral), its text deltas, and its result. */
export interface AgentStream<Output = unknown> extends AsyncIterable<StreamEvent> {
  /** The text deltas of the model's answers. Leaving it early parks the task, as the events' loop does. */
  readonly textStream: AsyncIterable<string>;
  /** The result once the run stops; rejects if a leg threw. */
  readonly result: Promise<RunResult<Output>>;
}

/**
 * An agent bound to a store. It holds no task state: every method reads and writes the store, so
 * any handle over the same store — in this process or another — sees and drives the same tasks.
 */
export interface AgentHandle<Output extends StandardSchemaV1 | undefined = undefined> {
  /** The store the handle's tasks live in. */
  readonly store: Store;
  /** Start a task and run legs until it completes, fails, is cancelled or parks. */
  run<R extends StandardSchemaV1 | undefined = Output>(
    input: AgentInput,
    options?: RunOptions<R>,
  ): Promise<RunResult<OutputOf<R>>>;
  /** `run`, streamed: leaving the loop early parks the task (`parked:interrupt`). */
  stream<R extends StandardSchemaV1 | undefined = Output>(
    input: AgentInput,
    options?: RunOptions<R>,
  ): AgentStream<OutputOf<R>>;
  /**
   * Send text to a task in any state: steered into the running leg, parked for the next leg, or —
   * when it has completed or failed — recorded as a follow-up that wakes it. Records only:
   * `continue` runs it. A cancelled task refuses (`TaskFinished`).
   */
  send(taskId: string, input: AgentInput, options?: SendOptions): Promise<SentInput>;
  /** Run the task's next leg(s), as `run` does, and return where it stands. */
  continue<R extends StandardSchemaV1 | undefined = Output>(
    taskId: string,
    options?: ContinueOptions<R>,
  ): Promise<RunResult<OutputOf<R>>>;
  /** The approvals pending for the task and the children it waits for. */
  approvals(taskId: string): Promise<PendingApproval[]>;
  /** Approve a pending call (of the task or a child it waits for). Records only: `continue` runs it. */
  approve(taskId: string, callId: string, options: ApproveOptions): Promise<Decision>;
  /** Deny a pending call; the model is told. Records only: `continue` runs the task on. */
  deny(taskId: string, callId: string, options: Omit<ApproveOptions, "scope">): Promise<Decision>;
}

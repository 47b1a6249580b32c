/**
 * What a harness runs: the agent (model, instructions, tools, limits, the agents it may delegate
 * to) and the host's settings (store, lease holder, sinks, caps). Plain data; nothing here lives
 * between calls. The defaults of the host's settings are in `defaults.ts`.
 */

import type { TaskState } from "../core/fold.ts";
import type { RandomBytes } from "../core/trust-framing.ts";
import { newId } from "../internal/ids.ts";
import type { Model } from "../ports/model.ts";
import type { Scorer } from "../ports/scorer.ts";
import type { StandardSchemaV1 } from "../ports/standard-schema.ts";
import type { Store } from "../ports/store.ts";
import type { ApprovalContext, Tool } from "../ports/tool.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { ModelSettings } from "../protocol/model-settings.ts";
import type { ProvenancePolicy } from "../protocol/provenance.ts";
import type { CallerProviderOptions } from "../protocol/provider-options.ts";
import type { Emit } from "../protocol/stream-event.ts";
import type { LeaseHolder } from "../protocol/task-event.ts";
import type { Budget } from "./budget/budget.ts";
import type { DeepReadonly, HookSettings, Hooks } from "./hooks/hooks.ts";
import type { CompactionSettings } from "./model/compaction.ts";
import type { QuotaGate } from "./quota/quota-gate.ts";

/** Which scorers run on an agent's finished tasks, and on what share of them. */
export interface ScoringSettings {
  /** Run in order; two of one name are refused. */
  scorers: readonly Scorer[];
  /** The share of tasks scored, from 0 to 1 (default 1: every task). */
  sampleRate?: number;
}

/**
 * An agent's definition: its model, instructions, tools and the limits and policies its tasks run
 * under (output schema, approvals, hooks, delegation, compaction, budget). Plain data, shared by
 * every task it runs. The low-level form that `runLeg` and workers take (`createAgent` builds one
 * from an `AgentDefinition`); `validateAgent` checks it.
 *
 * Its model settings (`temperature`, `maxOutputTokens`, `toolChoice`, `providerOptions` … every key
 * of `ModelSettings`, on `@sema-agent/core/protocol`) are its tasks' defaults: a task's settings
 * (given to `startTask`, recorded on `task_created`) win over them, key by key (`providerOptions`
 * per provider). A reserved provider option (`model`, `n`, `max_tokens` …) is refused here.
 */
export interface Agent extends ModelSettings {
  /** Recorded with each task it starts. */
  name?: string;
  /** The model every turn of the agent's tasks calls. */
  model: Model;
  /**
   * Appended to the standing instructions. A function is called before every model call with the
   * task's folded state (read-only) and must depend on nothing else, so that the request stays a
   * pure function of the log.
   */
  instructions?: string | ((state: DeepReadonly<TaskState>) => string);
  /**
   * `false` leaves out the standing instructions that tell the model what Sema's frames and labels
   * mean (`<system-reminder>`, untrusted fences, speaker labels). A security choice: without them
   * the model is not told that fenced text is data, so it is easier to steer by a tool's output.
   * Default true.
   */
  standingInstructions?: boolean;
  /** The tools the model may call, by their names. */
  tools?: Tool[];
  /**
   * The provider option keys a task's caller may set (a task's `settings.providerOptions` through
   * a host's API), by provider: `{ "openai-compatible": ["reasoning_effort"] }`. Empty by default:
   * a host refuses every provider option a request carries. A reserved key may not be listed.
   * Options given in code (`startTask` in the same process) are not checked against it.
   */
  callerProviderOptions?: CallerProviderOptions;
  /**
   * The final answer must be JSON matching this schema: any Standard Schema (zod's, or one with
   * Standard JSON Schema), or a plain JSON Schema object. The model is asked through the
   * provider's structured output; an answer that fails is sent back as a correction, up to
   * `outputAttempts`; then the task fails with `OutputInvalid`. The task's `result` is the JSON.
   */
  output?: OutputSchema;
  /** How many answers the model may give before an invalid one fails the task (default 2). */
  outputAttempts?: number;
  /**
   * An agent-level approval rule on top of each tool's own `needsApproval`: return true to have a
   * person decide this call (say, anything that writes outside a sandbox).
   */
  approvalPolicy?: (call: { name: string; input: JsonValue }, context: ApprovalContext) => boolean | Promise<boolean>;
  /**
   * What happens to a tool call whose context held untrusted content (`exposed`) or whose
   * arguments carry a run of it (`tainted`), per the tool's `effects` (docs/guide/security.md).
   * Default: tainted `local` and `external` calls need a person's approval; everything else runs.
   * `approvalPolicy`, `needsApproval` and a host's auto-approval do not turn these holds off;
   * only `"allow"` does, which lets injected text act: unsafe.
   */
  provenancePolicy?: ProvenancePolicy;
  /** Host code that watches and steers the loop. */
  hooks?: Hooks;
  /** Timeouts and fail-open/fail-closed per hook. */
  hookSettings?: HookSettings;
  /** Let the agent hand work to child tasks through the built-in `delegate` tool. */
  delegation?: DelegationSettings;
  /** Summarize older turns when the transcript nears the model's context window. */
  compaction?: CompactionSettings;
  /** Limits on turns (`budget.maxTurns`), tokens, cost and active time per task. */
  budget?: Budget;
  /**
   * Online scores: scorers run on the agent's tasks as each ends (completed or failed), on a
   * share of them (`sampleRate`, default 1), their verdicts recorded on the task as `task_scored`
   * (docs/guide/evals.md#online-scores). Whether a task is sampled is a function of its id, so
   * every process decides the same.
   */
  scoring?: ScoringSettings;
  /**
   * What a retryable model failure (connection refused, 5xx, 429…) does once it has outlasted the
   * model's own retries (`withRetry`). Default `park`: the task parks as `parked:model` with a
   * durable timer (see `modelBackoff`), and whichever worker or `sema resume` runs it next asks
   * the same turn again. `fail` fails the task (`ModelError`). A failure that is not retryable
   * (auth, bad request) fails the task either way.
   */
  onModelUnavailable?: "park" | "fail";
  /**
   * How long a `parked:model` task waits before it is runnable again: `baseMs × 2^(n−1)` for the
   * n-th such park in a row (a model turn resets the count), at least the provider's
   * `retry-after`, at most `maxMs`. Defaults: `baseMs` 10 000, `maxMs` 600 000 (10 minutes).
   */
  modelBackoff?: { baseMs?: number; maxMs?: number };
}

/** A schema for structured output: a Standard Schema, or a plain JSON Schema object. */
export type OutputSchema = StandardSchemaV1 | { readonly [key: string]: JsonValue };

/**
 * How an agent hands work to child tasks through the built-in `delegate` tool. Defined beside
 * `Agent` because each names the other (the agents a child may run as are agents).
 */
export interface DelegationSettings {
  /** Agents a child may run as, by name (the `agent` argument of the tool). Default: the parent's agent. */
  agents?: Record<string, Agent>;
  /** How deep delegation may go (a root task is depth 0). Default 3. */
  maxDepth?: number;
  /** How many children one task may spawn. Default 10. */
  maxChildren?: number;
  /** Run children in this process as soon as they are spawned (default true); false leaves them to workers. */
  runChildren?: boolean;
  /** The tool's name. Default `delegate`. */
  toolName?: string;
}

/**
 * The host's side of running tasks: the store, the agent, who this process is on leases, the event
 * sink and the caps applied to every tool call. What `runLeg` and `streamLeg` take, checked there.
 */
export interface HarnessOptions {
  /** Where the tasks' logs, leases and snapshots live. */
  store: Store;
  /** The agent the legs run. */
  agent: Agent;
  /**
   * Who this process is, recorded on the lease. Default: a random id, stable for the process's
   * lifetime, with no host or pid (core is runtime-neutral). Node hosts pass `nodeHost()` of
   * `@sema-agent/core/node` (host name, pid, process table).
   */
  holder?: LeaseHolder;
  /**
   * Whether a live lease's holder is known to be dead, so its lease may be taken over before it
   * expires (`holderDiedHere` of `@sema-agent/core/node`). Without it a lease is waited out.
   */
  holderDied?: (holder: LeaseHolder) => boolean;
  /** Default 30 s; renewed every third of it while a leg runs. */
  leaseTtlMs?: number;
  /**
   * Whether this host's legs take turns on the event loop (default `true`). The legs of one
   * process share one pacer: a routine step runs at once while the loop is quiet, and waits for
   * the next slice (about 4 ms of routine work, then timers and I/O) while a wave of legs is
   * busy, so a person's steer, an HTTP request or a lease renewal is not stuck behind thousands
   * of routine steps. A person's steps never wait. `false`: this host's legs never wait (a
   * process whose only work is these legs, measured for throughput).
   */
  pacing?: boolean;
  /**
   * Receives every stored event of the task while a leg runs, and the ephemeral deltas. It
   * observes only: a sink that throws loses its event, never the leg.
   */
  emit?: Emit;
  /**
   * Receives the events of the child tasks a leg runs in this process (delegation's
   * `runChildren`), which `emit` does not (a child's events are not its parent's stream). A
   * tracer passes its sink here too (`traceEmit`), so children run in-process are traced live.
   * Default: none.
   */
  childEmit?: Emit;
  /** Default 120 s per tool call, unless the tool sets its own. */
  toolTimeoutMs?: number;
  /** Default 50,000 characters per tool result, unless the tool sets its own. */
  maxToolOutputChars?: number;
  /** Store a snapshot after this many events since the last one (default 1000), and when a leg ends. */
  snapshotEvery?: number;
  /** Random source for fence nonces (tests pin it). */
  randomBytes?: RandomBytes;
  /**
   * Milliseconds since the epoch: the one clock the harness reads, for keeping its lease, timers
   * due, the `parked:model` backoff, a budget's `maxActiveMs`, tool call durations and riding out a
   * store outage. Default `Date.now`. The store stamps events (`at`) by its own clock: give it the
   * same one (`new MemoryStore({ now: clock })`) when a test moves time. Timers still run on
   * `setTimeout`.
   */
  clock?: () => number;
  /**
   * Asked before each model call whether the task's principal has room under its quotas
   * (`storeQuotaGate`); a verdict parks the task (`parked:quota`) until the window allows it.
   */
  quota?: QuotaGate;
  /**
   * The W3C `traceparent` of a tool call's span, given to the tool as `ToolContext.traceparent` so
   * that a call to another service (A2A, MCP) carries it. `seq` is the call's `tool_call_started`:
   * the span follows from the log, so a tracer can name it whether or not it saw the call (the
   * `callTraceparent` of `@sema-agent/otel`). Absent, returning undefined, throwing or rejecting:
   * the tool gets none, and the call runs all the same.
   */
  traceparentOf?: (call: ToolCallRef) => string | undefined | Promise<string | undefined>;
  /**
   * Told of each tool call whose `execute` threw or rejected, with exactly what it threw (its
   * class and stack intact) and the call, for the developer's log or error tracker. The model is
   * told the message only (`Error: <message>`); the call's `tool_result` records the class,
   * message and stack as `error`. Not called for a timeout, an interrupt or input the schema
   * refused. It observes only: a throw is ignored.
   */
  onToolError?: (error: unknown, call: ToolCallRef) => void;
}

/** A running tool call, as the log places it: its task, its id and the seq of its `tool_call_started`. */
export interface ToolCallRef {
  /** The task the call belongs to. */
  taskId: string;
  /** The call's id. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** The seq of the call's `tool_call_started` (this run's, for a call run again after a crash). */
  seq: number;
}

let processHolder: LeaseHolder | undefined;

/**
 * The holder of a host that names none: a random id, stable for this module's lifetime. It has no
 * host or pid, so nobody can find it dead; its leases are taken over only once they expire.
 */
export function defaultHolder(): LeaseHolder {
  processHolder ??= { id: `holder:${newId()}` };
  return processHolder;
}

/**
 * The session log's vocabulary (design §4): every state change of a task is one of these flat JSON
 * objects, discriminated on `type`, carrying its schema version `v`. The store stamps `taskId`,
 * `seq` and `at` on append. Each arm is a zod schema (validated at append, so nothing malformed is
 * ever written) and the type inferred from it. The few shapes also written by hand (the seed's
 * `HumanInputEvent`, the model-facing `ActorAssertion`, `ToolCall`, `FinishReason`,
 * `ToolResultStatus`) are held equal to their schemas by `schema-types.test-d.ts`, which the
 * typecheck runs, so the two cannot drift.
 */
import { z } from "zod";
import { attachmentSchema, userPartSchema } from "./content.ts";
import type { HumanInputEvent, TaskEventIdentity } from "./human-input.ts";
import { jsonObjectSchema, jsonValueSchema } from "./json.ts";
import { modelSettingsSchema } from "./model-settings.ts";
import { callProvenanceSchema } from "./provenance.ts";
import { traceContextSchema } from "./trace-context.ts";
import { usageSchema } from "./usage.ts";

const json = jsonValueSchema;
const nonEmpty = z.string().min(1);
const count = z.number().int().nonnegative();

/**
 * Who did something: `id` as the host or ingress named it, `verified` when an ingress authenticated it,
 * and the `issuer` that vouches for it. Recorded on inputs, approvals, cancels and interrupts.
 */
export const actorSchema = z.strictObject({
  id: z.string(),
  verified: z.boolean(),
  issuer: z.string().exactOptional(),
});

/** One tool call the model asked for: its `callId` (unique in the turn), the tool's `name` and its JSON `input`. */
export const toolCallSchema = z.strictObject({ callId: nonEmpty, name: nonEmpty, input: json });

/**
 * Why a leg parked: the thing it waits for. `shutdown`: its host stopped gracefully; any host
 * should pick the task up again (unlike `interrupt`, which waits for a person). `model`: the model
 * stayed unavailable past its retries; a durable timer recorded with the park (a `wake_scheduled`
 * whose `wakeId` starts with `model-wait:`) makes it runnable again after a backoff. `tool`: the
 * model called an external tool (see `external_tools`), whose result comes from outside.
 * `quota`: the next model call would go past a quota of the task's principal (the leg's
 * `detail` names it); a silent timer at the window's edge (`quota-wait:`) wakes it, and so does
 * a resume request once an operator raised the quota. `forked`: the task is a fork (or an import)
 * whose copied log ended inside a leg, or before any leg; it runs on an input or a resume request.
 */
export const parkReasonSchema = z.enum([
  "approval",
  "input",
  "wake",
  "child",
  "budget",
  "interrupt",
  "crash",
  "shutdown",
  "model",
  "tool",
  "quota",
  "forked",
]);
/** What a parked task waits for (see {@link parkReasonSchema}). */
export type ParkReason = z.infer<typeof parkReasonSchema>;

/** Why a leg ended: the task ended (`completed`, `failed`, `cancelled`) or parked (`parked:<reason>`). */
export const legEndReasonSchema = z.enum([
  "completed",
  "failed",
  "cancelled",
  ...parkReasonSchema.options.map((reason) => `parked:${reason}` as const),
]);
/** Why a leg ended (see {@link legEndReasonSchema}). */
export type LegEndReason = z.infer<typeof legEndReasonSchema>;

/** Who runs a leg: enough for a host on the same machine to tell that the holder died. */
export const holderSchema = z.strictObject({
  id: nonEmpty,
  host: z.string().exactOptional(),
  pid: count.exactOptional(),
  /**
   * Which process table `pid` is in: the machine's boot and PID namespace. Containers can share a
   * host name and reuse pids; only a holder in this same space can be found dead by its pid.
   */
  space: nonEmpty.exactOptional(),
});
/** Who holds a task's lease: an id, and the host, pid and process space that let a neighbour find it dead. */
export type LeaseHolder = z.infer<typeof holderSchema>;

const v1 = z.literal(1);

/**
 * The model settings a task was started with ({@link modelSettingsSchema}), recorded on
 * `task_created` (v 2): the model request is the agent's defaults with these on top
 * (`mergeModelSettings`), so every process builds the same request from the log. `output` is the
 * JSON Schema the final answer must match, when the task overrides the agent's.
 */
export const taskSettingsSchema = modelSettingsSchema.extend({ output: jsonObjectSchema.exactOptional() });
/** A task's model settings, recorded on `task_created` (see {@link taskSettingsSchema}). */
export type TaskSettings = z.infer<typeof taskSettingsSchema>;

/**
 * v 2 adds `settings`. A task with settings is written as v 2 so that a reader that predates them
 * refuses the event instead of building a request without them; a task without is still v 1.
 */
export const taskCreatedSchema = z
  .strictObject({
    type: z.literal("task_created"),
    v: z.union([v1, z.literal(2)]),
    objective: z.string(),
    principal: nonEmpty,
    agent: nonEmpty.exactOptional(),
    model: nonEmpty.exactOptional(),
    parentTaskId: nonEmpty.exactOptional(),
    actor: actorSchema.exactOptional(),
    metadata: z.record(z.string(), json).exactOptional(),
    settings: taskSettingsSchema.exactOptional(),
    /** The W3C trace context of the request that started the task, when it carried one. */
    traceContext: traceContextSchema.exactOptional(),
  })
  .refine((event) => (event.v === 2) === (event.settings !== undefined), {
    message: "settings are recorded on task_created v 2, and only there",
    path: ["settings"],
  });

/** A leg began: one host's run of the task's loop, until it ends or parks. `holder` is who runs it. */
export const legStartedSchema = z.strictObject({
  type: z.literal("leg_started"),
  v: v1,
  legId: nonEmpty,
  /** What started it: a new task, a resume, a wake, recovery after a crash. */
  trigger: z.enum(["start", "resume", "wake", "recover"]),
  holder: holderSchema.exactOptional(),
});

/**
 * A leg ended: the task finished (`completed`, `failed`, `cancelled`) or parked (`parked:<reason>`), with an optional `detail`.
 */
export const legEndedSchema = z.strictObject({
  type: z.literal("leg_ended"),
  v: v1,
  legId: nonEmpty,
  reason: legEndReasonSchema,
  detail: z.string().exactOptional(),
});

/**
 * Version 2 is written only when an input carries attachments (`attachments`, never empty): a
 * reader of version 1 would deliver the text alone and drop the images silently, so it must
 * refuse instead. An input of text only stays version 1, byte for byte what it always was.
 */
export const humanInputSchema = z
  .strictObject({
    type: z.literal("human_input"),
    v: z.union([v1, z.literal(2)]),
    inputId: nonEmpty,
    carrier: nonEmpty,
    source: z.enum(["user", "operator", "supervisor", "external", "system"]),
    delivery: z.enum(["received", "parked", "applied", "dropped"]),
    sessionSeq: count,
    text: z.string().exactOptional(),
    actor: actorSchema.exactOptional(),
    issuer: z.string().exactOptional(),
    principal: z.string().exactOptional(),
    entryId: z.string().exactOptional(),
    legId: z.string().exactOptional(),
    policy: z.enum(["steer", "queue", "interrupt", "reject"]).exactOptional(),
    reason: z.string().exactOptional(),
    /** The input's images and files (their bytes in the blob table), in the order given; `text` holds its text parts. */
    attachments: z.array(attachmentSchema).min(1).exactOptional(),
    /** The W3C trace context of the request that sent the input, when it carried one (never on `applied`). */
    traceContext: traceContextSchema.exactOptional(),
  })
  .refine((event) => (event.v === 2) === (event.attachments !== undefined), {
    message: "attachments are written in version 2 and only there",
    path: ["v"],
  });

/** The transcript entry that commits applied inputs to what the model sees, with the exact bytes. */
export const userMessageSchema = z
  .strictObject({
    type: z.literal("user_message"),
    /** 2 only with `parts` (an old reader would send the text without the attachments). */
    v: z.union([v1, z.literal(2)]),
    entryId: nonEmpty,
    /** The entry's text: the whole entry in version 1; in version 2 its text parts, for readers of text. */
    content: z.string(),
    inputIds: z.array(nonEmpty),
    /** What the model receives when the inputs carried attachments: each input's framed text, then its attachments. */
    parts: z.array(userPartSchema).min(1).exactOptional(),
  })
  .refine((event) => (event.v === 2) === (event.parts !== undefined), {
    message: "parts are written in version 2 and only there",
    path: ["v"],
  });

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a SHA-256 digest in lowercase hex");

/**
 * What a model call was sent, as digests (SHA-256 of canonical JSON, lowercase hex): `digest` of
 * the whole request, and one per part, so a replay that differs can say which part did. `system`:
 * the system text; `tools`: the tool specs offered; `settings`: every model setting, the tool
 * choice and the response format; `transcript`: the transcript (each entry's canonical JSON, the
 * attachments by their digests). `entries` is the transcript's length.
 */
export const requestDigestSchema = z.strictObject({
  digest: sha256Hex,
  system: sha256Hex,
  tools: sha256Hex,
  settings: sha256Hex,
  transcript: sha256Hex,
  entries: count,
});
/** The digests of what a model call was sent (see {@link requestDigestSchema}). */
export type RequestDigest = z.infer<typeof requestDigestSchema>;

/**
 * One settled model turn: its text, reasoning, tool calls, token usage and why it finished. The
 * streamed deltas are ephemeral; this event is the truth. Version 2 carries `request`, the digests
 * of what the model was sent (a replay compares them); a turn without it stays version 1, and a
 * replay reports it as unverified.
 */
export const modelTurnSchema = z
  .strictObject({
    type: z.literal("model_turn"),
    v: z.union([v1, z.literal(2)]),
    legId: nonEmpty,
    /** The session's model-turn count including this one (1 for the first turn). */
    sessionSeq: count,
    text: z.string(),
    reasoning: z.string().exactOptional(),
    toolCalls: z.array(toolCallSchema),
    usage: usageSchema,
    finishReason: z.enum(["stop", "length", "content-filter", "tool-calls", "error", "other"]),
    model: z.string().exactOptional(),
    /** What the model was sent, as digests (v 2). */
    request: requestDigestSchema.exactOptional(),
  })
  .refine((event) => (event.v === 2) === (event.request !== undefined), {
    message: "request is recorded on model_turn v 2, and only there",
    path: ["v"],
  });

/** A tool call is about to run (written before it runs, so a crash mid-call is seen on recovery). */
export const toolCallStartedSchema = z.strictObject({
  type: z.literal("tool_call_started"),
  v: v1,
  legId: nonEmpty,
  callId: nonEmpty,
  name: nonEmpty,
  /** 1 for the first run; a re-run of an idempotent tool after a crash counts up. */
  attempt: z.number().int().positive(),
  /** The input the tool runs with, when a hook replaced the model's (absent: the model's). */
  input: json.exactOptional(),
});

/**
 * What a tool threw, for the developer: the error's class (`name`), its `message` and `stack`
 * (capped). Recorded beside the result, never sent to the model (its `content` says only the
 * message). Version 1 still: a reader that predates it loses a diagnostic, never a behaviour.
 */
export const toolErrorSchema = z.strictObject({
  name: z.string(),
  message: z.string(),
  stack: z.string().exactOptional(),
});

/**
 * A tool call's outcome: `ok`, `error`, `denied` (by approval or a hook) or `interrupted`, with what the model receives.
 * Version 2 carries `usage` (and `model`): what model calls the tool made itself cost (a
 * quarantined reader's), counted in the task's usage, budget and quotas like a turn's; a reader
 * that predates it refuses the event rather than drop the spend. Every other result stays v 1.
 */
export const toolResultSchema = z
  .strictObject({
    type: z.literal("tool_result"),
    v: z.union([v1, z.literal(2)]),
    callId: nonEmpty,
    name: nonEmpty,
    status: z.enum(["ok", "error", "denied", "interrupted"]),
    /** Exactly what the model receives (already truncated and, for untrusted output, fenced). */
    content: z.string(),
    /** The tool's own output, for hosts and consoles. */
    output: json.exactOptional(),
    truncated: z.literal(true).exactOptional(),
    durationMs: count.exactOptional(),
    legId: z.string().exactOptional(),
    /** What the tool threw, when it threw (an `error` result): for hosts and consoles, not the model. */
    error: toolErrorSchema.exactOptional(),
    /** What the model calls the tool made cost (v 2), e.g. a quarantined reader's. */
    usage: usageSchema.exactOptional(),
    /** The model those calls went to (v 2), for quotas and prices by model. */
    model: z.string().exactOptional(),
  })
  .refine((event) => (event.v === 2) === (event.usage !== undefined), {
    message: "usage is recorded on tool_result v 2, and only there",
    path: ["v"],
  })
  .refine((event) => event.model === undefined || event.usage !== undefined, {
    message: "model is recorded with usage only",
    path: ["model"],
  });

/**
 * What a running tool call recorded about its progress (`ToolContext.checkpoint`): the remote job
 * it started, how far it got. A re-run of the call after its host died gets the last one
 * (`ToolContext.lastCheckpoint`), so a long tool can pick its work up instead of doing it again.
 * `data` is the tool's own JSON; `name` is the tool's, for consoles.
 */
export const toolCheckpointSchema = z.strictObject({
  type: z.literal("tool_checkpoint"),
  v: v1,
  legId: nonEmpty,
  callId: nonEmpty,
  name: nonEmpty,
  data: json,
});

/**
 * A tool call needs a decision before it runs; the task parks with `parked:approval` until one is
 * recorded. Version 2 is written only when the provenance policy held the call (`provenance`: its
 * classification and the untrusted spans it rests on), so a reader that predates it refuses the
 * event instead of showing a person the call without why it was held; v 1 stays what it was.
 * Version 3 is a hold by the egress rule (`provenance.egress`: the tool reaches the network).
 */
export const approvalRequestedSchema = z
  .strictObject({
    type: z.literal("approval_requested"),
    v: z.union([v1, z.literal(2), z.literal(3)]),
    legId: nonEmpty,
    callId: nonEmpty,
    name: nonEmpty,
    /** The call's input as canonical JSON (sorted keys, no insignificant whitespace). */
    inputJson: z.string(),
    /** SHA-256 of `inputJson`, lowercase hex. */
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    /** Why the provenance policy held the call (docs/guide/security.md). */
    provenance: callProvenanceSchema.exactOptional(),
  })
  .refine((event) => (event.v === 1) === (event.provenance === undefined), {
    message: "provenance is recorded on approval_requested v 2 and 3, and only there",
    path: ["v"],
  })
  .refine((event) => (event.v === 3) === (event.provenance?.egress !== undefined), {
    message: "an egress hold is recorded on approval_requested v 3, and only there",
    path: ["v"],
  });

/** The decision on a requested approval, bound to the call's input by `digest`, with who decided. */
export const approvalDecidedSchema = z.strictObject({
  type: z.literal("approval_decided"),
  v: v1,
  callId: nonEmpty,
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  decision: z.enum(["approve", "deny"]),
  /** `tool-for-task`: the decision also stands for later calls of the same tool in this task. */
  scope: z.enum(["call", "tool-for-task"]).exactOptional(),
  reason: z.string().exactOptional(),
  actor: actorSchema,
  /** The W3C trace context of the request that decided, when it carried one. */
  traceContext: traceContextSchema.exactOptional(),
});

/**
 * The `hook` of the `hook_feedback` that sends an answer that failed the output schema back to the
 * model as a correction (no host hook has this name: hooks are named after their methods).
 */
export const OUTPUT_CORRECTION = "output";

/** A hook's (or the output check's) message back to the model, recorded as a transcript entry. */
export const hookFeedbackSchema = z.strictObject({
  type: z.literal("hook_feedback"),
  v: v1,
  hook: nonEmpty,
  /** Exactly what the model receives (already framed). */
  content: z.string(),
  legId: z.string().exactOptional(),
});

/**
 * A note the engine records for hosts and consoles (`kind` names it: `hook_failed`,
 * `model_unavailable`, `output_invalid`, …). The model never sees it.
 */
export const engineNoteSchema = z.strictObject({
  type: z.literal("engine_note"),
  v: v1,
  kind: nonEmpty,
  text: z.string(),
  data: json.exactOptional(),
  legId: z.string().exactOptional(),
});

/**
 * Someone asked the running leg to stop at once and park (`parked:interrupt`). A command of its
 * own arm, not a note: the loop acts on it. Logs written before this arm existed carry it as an
 * `engine_note` of kind `interrupt_requested`, which is still read the same way.
 */
export const interruptRequestedSchema = z.strictObject({
  type: z.literal("interrupt_requested"),
  v: v1,
  actor: actorSchema.exactOptional(),
});

/**
 * Someone asked for a parked task's next leg, durably: any worker picks it up. Older logs carry it
 * as an `engine_note` of kind `resume_requested`, still read the same way.
 */
export const resumeRequestedSchema = z.strictObject({
  type: z.literal("resume_requested"),
  v: v1,
  actor: actorSchema.exactOptional(),
});

/**
 * What a parent set aside of its budget for a child when it spawned it (`child_task` v 2): the
 * child's share, held against the parent's limits until the child's result releases it. Only the
 * limits the parent has; `turns` only when its `maxTurns` counts the whole tree.
 */
export const budgetReservationSchema = z.strictObject({
  tokens: count.exactOptional(),
  costUsd: z.number().nonnegative().exactOptional(),
  activeMs: count.exactOptional(),
  turns: count.exactOptional(),
});

/**
 * A delegated child task: `spawned` when it is created, `result` when it ends, with its outcome and
 * usage. v 2 carries the budget ledger: `reserved` on a spawn (the child's share of the parent's
 * budget), `turns` on a result (the model turns of the child's tree, for a tree-wide `maxTurns`)
 * and `held` (what the child's own children still hold).
 * Only an event that carries either is v 2, so a reader that predates the ledger refuses it instead
 * of carving a child as if nothing were set aside; every other `child_task` stays v 1.
 * v 3 is a result whose child read untrusted text (`untrusted`, docs/guide/security.md
 * "Delegation"): the parent treats its answer as untrusted, and a reader that predates this
 * refuses the event rather than take the answer as trusted. It may carry the v 2 fields too.
 */
export const childTaskSchema = z
  .strictObject({
    type: z.literal("child_task"),
    v: z.union([v1, z.literal(2), z.literal(3)]),
    phase: z.enum(["spawned", "result"]),
    childTaskId: nonEmpty,
    callId: z.string().exactOptional(),
    status: z.enum(["completed", "failed", "cancelled"]).exactOptional(),
    result: z.string().exactOptional(),
    /** What the child (and its own children) used, counted against the parent's budget. */
    usage: usageSchema.exactOptional(),
    /** The child's share of the parent's budget, set aside until its result (spawned, v 2). */
    reserved: budgetReservationSchema.exactOptional(),
    /** Model turns of the child and its own children (result, v 2, for `turnsScope: "tree"`). */
    turns: count.exactOptional(),
    /**
     * What the child's own children still held when it ended (result, v 2): the parent will hear
     * nothing more of their spend, so it keeps holding it.
     */
    held: budgetReservationSchema.exactOptional(),
    /**
     * The child's context held untrusted text (result, v 3): the seqs, in the child's own log, of
     * the events whose entries held it (the first 16). Its answer reaches the parent fenced.
     */
    untrusted: z.array(count).min(1).max(16).exactOptional(),
  })
  .refine(
    (event) =>
      event.v === 3 ||
      (event.v === 2) === (event.reserved !== undefined || event.turns !== undefined || event.held !== undefined),
    { message: "reserved, turns and held are written in version 2 and only there", path: ["v"] },
  )
  .refine((event) => (event.v === 3) === (event.untrusted !== undefined), {
    message: "untrusted is written in version 3 and only there",
    path: ["v"],
  })
  .refine((event) => event.untrusted === undefined || event.phase === "result", {
    message: "untrusted is written on a result only",
    path: ["untrusted"],
  })
  .refine((event) => event.reserved === undefined || event.phase === "spawned", {
    message: "reserved is written on a spawn only",
    path: ["reserved"],
  })
  .refine((event) => (event.turns === undefined && event.held === undefined) || event.phase === "result", {
    message: "turns and held are written on a result only",
    path: ["phase"],
  });

/**
 * A child task's end has been reported to its parent (the `child_task` result is in the parent's
 * log, or the parent no longer needs it). Until then a child that has ended stays runnable, so a
 * report lost with a dying process is made by the next worker.
 */
export const parentNotifiedSchema = z.strictObject({
  type: z.literal("parent_notified"),
  v: v1,
});

/** The transcript up to `throughSeq` was compacted: the model sees `summary` in place of those entries. */
export const compactionSchema = z.strictObject({
  type: z.literal("compaction"),
  v: v1,
  /** The summary that replaces the transcript entries recorded up to and including `throughSeq`. */
  summary: z.string(),
  throughSeq: count,
  entryId: nonEmpty,
});

/**
 * A tool the task's model may call that no process of the host runs: whoever offered it (a web
 * client, a relay) runs a call to it and records the result (`submitToolResult`).
 */
export const externalToolSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "a tool name: 1 to 128 letters, digits, _ or -"),
  description: z.string().exactOptional(),
  /** JSON Schema of the tool's input object. */
  inputSchema: jsonObjectSchema,
});
/** One external tool, as recorded on `external_tools`. */
export type ExternalTool = z.infer<typeof externalToolSchema>;

/**
 * The external tools the task's model is offered from the next model call on, replacing any
 * offered before (an empty list withdraws them). A call to one is not run by the leg: the leg
 * parks (`parked:tool`) until a `tool_result` for it is recorded from outside.
 */
export const externalToolsSchema = z.strictObject({
  type: z.literal("external_tools"),
  v: v1,
  tools: z.array(externalToolSchema),
  actor: actorSchema.exactOptional(),
});

/** A durable timer: at `due` the task is woken with `text` (a wake input whose inputId is `wakeId`). */
export const wakeScheduledSchema = z.strictObject({
  type: z.literal("wake_scheduled"),
  v: v1,
  wakeId: nonEmpty,
  /** ISO-8601. */
  due: z.iso.datetime(),
  text: z.string(),
  source: z.enum(["system", "external"]),
  /** Who the text is from, for an external wake (neutralized into the fence's header). */
  from: z.string().exactOptional(),
});

/** The task finished with its final answer, `result`. */
export const taskCompletedSchema = z.strictObject({ type: z.literal("task_completed"), v: v1, result: z.string() });

/** The task failed with a typed error (stable `code` and a message). */
export const taskFailedSchema = z.strictObject({
  type: z.literal("task_failed"),
  v: v1,
  error: z.strictObject({ code: nonEmpty, message: z.string() }),
});

/** The task was cancelled, optionally with a reason and by whom. */
export const taskCancelledSchema = z.strictObject({
  type: z.literal("task_cancelled"),
  v: v1,
  reason: z.string().exactOptional(),
  actor: actorSchema.exactOptional(),
});

/**
 * The task is a copy of another's log up to `source.seq` (the events before this one, seq for
 * seq): a fork (`origin: "fork"`) or an import of an exported task (`origin: "import"`, the
 * source naming the task as exported). It closes a leg the copy left open (the fork parks,
 * `parked:forked`, or `parked:approval` when a decision is pending) and detaches the children
 * still running at the cut (`detachedChildren`: their results go to the source; the calls that
 * wait for them get an interrupted result). `model` and `settings` are the fork's edits (the
 * settings go on top of the task's); `replacedInput` and `replacedResult` name the source's input
 * or tool result that the events after this one replace. `atSeq` is the seq the caller asked
 * for, when the cut moved back to a step boundary. `reopenedApprovals` and `revokedGrants` are the
 * decisions the copy carried that it may not spend: the fork asks again.
 */
export const taskForkedSchema = z.strictObject({
  type: z.literal("task_forked"),
  v: v1,
  origin: z.enum(["fork", "import"]),
  source: z.strictObject({ taskId: nonEmpty, seq: count }),
  atSeq: count.exactOptional(),
  actor: actorSchema.exactOptional(),
  model: nonEmpty.exactOptional(),
  settings: modelSettingsSchema.exactOptional(),
  replacedInput: z.strictObject({ inputId: nonEmpty, seq: count }).exactOptional(),
  replacedResult: z.strictObject({ callId: nonEmpty, seq: count }).exactOptional(),
  detachedChildren: z.array(nonEmpty).min(1).exactOptional(),
  /** The source task's parent, when it was a child: the fork is a root task of its own. */
  sourceParentTaskId: nonEmpty.exactOptional(),
  /**
   * Calls approved in the copy that had not run at its end: a decision is spent by the task it was
   * made in, so here each waits for a decision again (a person approved one run, not one per copy).
   */
  reopenedApprovals: z.array(nonEmpty).min(1).exactOptional(),
  /** Tools granted for the source task (`tool-for-task`): a grant stays with the task it was given in. */
  revokedGrants: z.array(nonEmpty).min(1).exactOptional(),
});

/** A scorer's name: a letter, then letters, digits, `_`, `.`, `:` or `-`; at most 64 characters. */
export const scorerNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/, "a scorer's name is a letter, then letters, digits, _ . : or -");

/**
 * A scorer's verdict on the task (docs/guide/evals.md): `value` in [0, 1] and why. `experiment`
 * names the experiment whose case the task is, absent for a score an agent's own scorers gave a
 * finished task (online). A task may be scored by the same scorer again (a rubric changed): the
 * latest counts. Written by whoever scored; the task's status is unchanged.
 */
export const taskScoredSchema = z.strictObject({
  type: z.literal("task_scored"),
  v: v1,
  scorer: scorerNameSchema,
  value: z.number().min(0).max(1),
  reason: z.string().exactOptional(),
  experiment: nonEmpty.exactOptional(),
});

/** Every arm, for validation at append. */
export const taskEventSchema = z.discriminatedUnion("type", [
  taskCreatedSchema,
  legStartedSchema,
  legEndedSchema,
  humanInputSchema,
  userMessageSchema,
  modelTurnSchema,
  toolCallStartedSchema,
  toolResultSchema,
  toolCheckpointSchema,
  approvalRequestedSchema,
  approvalDecidedSchema,
  hookFeedbackSchema,
  engineNoteSchema,
  interruptRequestedSchema,
  resumeRequestedSchema,
  childTaskSchema,
  parentNotifiedSchema,
  compactionSchema,
  wakeScheduledSchema,
  externalToolsSchema,
  taskCompletedSchema,
  taskFailedSchema,
  taskCancelledSchema,
  taskForkedSchema,
  taskScoredSchema,
]);

/** The first event of every task (see {@link taskCreatedSchema}). */
export type TaskCreatedEvent = z.infer<typeof taskCreatedSchema>;
/** A leg began (see {@link legStartedSchema}). */
export type LegStartedEvent = z.infer<typeof legStartedSchema>;
/** A leg ended (see {@link legEndedSchema}). */
export type LegEndedEvent = z.infer<typeof legEndedSchema>;
/** A transcript entry committing applied inputs (see {@link userMessageSchema}). */
export type UserMessageEvent = z.infer<typeof userMessageSchema>;
/** One settled model turn (see {@link modelTurnSchema}). */
export type ModelTurnEvent = z.infer<typeof modelTurnSchema>;
/** A tool call about to run (see {@link toolCallStartedSchema}). */
export type ToolCallStartedEvent = z.infer<typeof toolCallStartedSchema>;
/** A tool call's outcome (see {@link toolResultSchema}). */
export type ToolResultEvent = z.infer<typeof toolResultSchema>;
/** What a tool threw, as its result records it (see {@link toolErrorSchema}). */
export type ToolErrorDetail = z.infer<typeof toolErrorSchema>;
/** A running tool call's recorded progress (see {@link toolCheckpointSchema}). */
export type ToolCheckpointEvent = z.infer<typeof toolCheckpointSchema>;
/** A tool call awaiting a decision (see {@link approvalRequestedSchema}). */
export type ApprovalRequestedEvent = z.infer<typeof approvalRequestedSchema>;
/** The decision on an approval (see {@link approvalDecidedSchema}). */
export type ApprovalDecidedEvent = z.infer<typeof approvalDecidedSchema>;
/** A hook's message back to the model (see {@link hookFeedbackSchema}). */
export type HookFeedbackEvent = z.infer<typeof hookFeedbackSchema>;
/** A note for hosts and consoles (see {@link engineNoteSchema}). */
export type EngineNoteEvent = z.infer<typeof engineNoteSchema>;
/** A request to stop the running leg and park (see {@link interruptRequestedSchema}). */
export type InterruptRequestedEvent = z.infer<typeof interruptRequestedSchema>;
/** A request for a parked task's next leg (see {@link resumeRequestedSchema}). */
export type ResumeRequestedEvent = z.infer<typeof resumeRequestedSchema>;
/** A delegated child task's spawn or result (see {@link childTaskSchema}). */
export type ChildTaskEvent = z.infer<typeof childTaskSchema>;
/** A child's share of its parent's budget (see {@link budgetReservationSchema}). */
export type BudgetReservation = z.infer<typeof budgetReservationSchema>;
/** A child's end reported to its parent (see {@link parentNotifiedSchema}). */
export type ParentNotifiedEvent = z.infer<typeof parentNotifiedSchema>;
/** A compaction of the transcript (see {@link compactionSchema}). */
export type CompactionEvent = z.infer<typeof compactionSchema>;
/** A durable timer (see {@link wakeScheduledSchema}). */
export type WakeScheduledEvent = z.infer<typeof wakeScheduledSchema>;
/** The tools a client runs itself, offered to the model (see {@link externalToolsSchema}). */
export type ExternalToolsEvent = z.infer<typeof externalToolsSchema>;
/** The task's final answer (see {@link taskCompletedSchema}). */
export type TaskCompletedEvent = z.infer<typeof taskCompletedSchema>;
/** The task's failure (see {@link taskFailedSchema}). */
export type TaskFailedEvent = z.infer<typeof taskFailedSchema>;
/** The task's cancellation (see {@link taskCancelledSchema}). */
export type TaskCancelledEvent = z.infer<typeof taskCancelledSchema>;

/** The task is a fork or an import of another's log (see {@link taskForkedSchema}). */
export type TaskForkedEvent = z.infer<typeof taskForkedSchema>;
/** A scorer's verdict on the task (see {@link taskScoredSchema}). */
export type TaskScoredEvent = z.infer<typeof taskScoredSchema>;

/** One entry of the session log as written (before the store stamps its identity). */
export type TaskEvent =
  | TaskCreatedEvent
  | LegStartedEvent
  | LegEndedEvent
  | HumanInputEvent
  | UserMessageEvent
  | ModelTurnEvent
  | ToolCallStartedEvent
  | ToolResultEvent
  | ToolCheckpointEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent
  | HookFeedbackEvent
  | EngineNoteEvent
  | InterruptRequestedEvent
  | ResumeRequestedEvent
  | ChildTaskEvent
  | ParentNotifiedEvent
  | CompactionEvent
  | WakeScheduledEvent
  | ExternalToolsEvent
  | TaskCompletedEvent
  | TaskFailedEvent
  | TaskCancelledEvent
  | TaskForkedEvent
  | TaskScoredEvent;

/** The `type` of every event arm. */
export type TaskEventType = TaskEvent["type"];

/** An event as the store returns it: stamped with the task, its position and the time of append. */
export type StoredEvent = TaskEvent & Required<Pick<TaskEventIdentity, "taskId" | "seq" | "at">>;

/** The terminal arms: after one of these the task is over until a wake. */
export const TERMINAL_EVENT_TYPES = ["task_completed", "task_failed", "task_cancelled"] as const;

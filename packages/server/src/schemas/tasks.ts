/** Request and response bodies of `/v1/tasks` and `/v1/tasks/{taskId}`. */
import { callProvenanceSchema, MODEL_SETTING_KEYS, taskSettingsSchema, usageSchema } from "@sema-agent/core/protocol";
import { z } from "zod";
import { idSchema, JsonValue, ParkReason, TaskStatus, textOrParts, Usage } from "./common.ts";
import { named } from "./registry.ts";

export const AGENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const CreateTaskRequest = named(
  "CreateTaskRequest",
  z.strictObject({
    objective: textOrParts("What the task should do.", z.string().min(1)),
    agent: z
      .string()
      .regex(AGENT_NAME_PATTERN)
      .optional()
      .describe("A configured agent's name; default: the default agent."),
    metadata: z.record(z.string(), JsonValue).optional().describe("Stored with the task, never shown to the model."),
    settings: taskSettingsSchema
      .optional()
      .describe(
        `This task's model settings (${MODEL_SETTING_KEYS.join(", ")}) and \`output\`, the JSON Schema its final answer must match: recorded on task_created, they win over the agent's. A provider option is refused (400) unless the agent's callerProviderOptions lists its key.`,
      ),
  }),
);

export const CreateTaskResponse = named("CreateTaskResponse", z.object({ taskId: z.string(), status: TaskStatus }));

export const ListTasksQuery = z.strictObject({
  status: TaskStatus.optional(),
  agent: z.string().regex(AGENT_NAME_PATTERN).optional().describe("Only tasks of this agent (exact name)."),
  q: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Only tasks whose objective contains this text, ignoring case (within its first 1,000 characters)."),
  parentTaskId: idSchema.optional().describe("Only the children of this task."),
  roots: z.enum(["true", "false"]).optional().describe("`true`: only tasks without a parent. Not with `parentTaskId`."),
  cursor: z.string().min(1).max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const TaskStreamQuery = z.strictObject({
  status: TaskStatus.optional().describe("Only tasks with this status after the change."),
  agent: z.string().regex(AGENT_NAME_PATTERN).optional().describe("Only tasks of this agent."),
  roots: z.enum(["true", "false"]).optional().describe("`true`: only tasks without a parent."),
});

export const ForkedFrom = named(
  "ForkedFrom",
  z.object({
    taskId: z.string().describe("The source: the task forked, or the task's id in the export file imported."),
    seq: z.number().int().describe("The last seq of the source copied."),
    origin: z.enum(["fork", "import"]),
  }),
  "Where a forked or imported task came from (its last `task_forked`). `GET /v1/tasks/{taskId}/forks` lists the other way.",
);

export const TaskScores = named(
  "TaskScores",
  z.record(
    z.string(),
    z.object({
      value: z.number().min(0).max(1),
      reason: z.string().optional(),
      experiment: z.string().optional().describe("The experiment whose case the task is; absent for an online score."),
    }),
  ),
  "Each scorer's latest verdict on the task (`task_scored`), by scorer name (docs/guide/evals.md).",
);

export const TaskCreator = named(
  "TaskCreator",
  z.object({
    actorId: z.string().describe("The actor that created the task, as the ingress named it."),
    verified: z.boolean().describe("Whether the ingress derived the id from credentials it checked."),
  }),
  "Who created the task (the `actor` of its `task_created`).",
);

export const TaskListUsage = named(
  "TaskListUsage",
  usageSchema.extend({
    costUsd: z
      .number()
      .optional()
      .describe(
        "The tokens at the server's quota prices for the task's model; absent when the server has no price for it.",
      ),
  }),
);

export const TaskListItem = named(
  "TaskListItem",
  z.object({
    taskId: z.string(),
    objective: z.string(),
    status: TaskStatus,
    parkedReason: ParkReason.optional(),
    parentTaskId: z.string().optional(),
    childCount: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "How many child tasks it has (`parentTaskId=` lists them); forks are not children (`GET /v1/tasks/{taskId}/forks`). Absent when the store cannot count them.",
      ),
    forkedFrom: ForkedFrom.optional(),
    scores: TaskScores.optional(),
    agent: z.string().optional().describe("The agent the task runs (from `task_created`)."),
    model: z.string().optional().describe("The model it was created with."),
    createdBy: TaskCreator.optional(),
    createdAt: z.string(),
    updatedAt: z.string().describe("The time of its last event."),
    lastSeq: z.number().int(),
    usage: TaskListUsage,
    openApprovals: z.array(z.string()).describe("Calls waiting for a decision; non-empty: waiting for approval."),
  }),
);

export const TaskPage = named(
  "TaskPage",
  z.object({
    tasks: z.array(TaskListItem),
    nextCursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last page."),
  }),
);

export const PendingApproval = named(
  "PendingApproval",
  z.object({
    callId: z.string(),
    name: z.string(),
    digest: z.string().describe("SHA-256 of `inputJson`; a decision must name it."),
    inputJson: z.string().describe("The call's input as canonical JSON, exactly as it will run."),
    input: JsonValue,
    provenance: callProvenanceSchema
      .optional()
      .describe(
        "Why the provenance policy held the call: its classification and the untrusted spans its arguments came from (docs/guide/security.md).",
      ),
  }),
);

export const ChildTask = named(
  "ChildTask",
  z.object({
    taskId: z.string(),
    status: z.enum(["running", "completed", "failed", "cancelled"]),
    result: z.string().optional(),
  }),
);

export const TaskModelPrice = named(
  "TaskModelPrice",
  z.object({
    input: z.number().describe("US dollars per million input tokens."),
    output: z.number().describe("US dollars per million output tokens."),
    cachedInput: z.number().optional().describe("US dollars per million cached input tokens (else `input`)."),
  }),
);

export const TaskDetail = named(
  "TaskDetail",
  z.object({
    taskId: z.string(),
    objective: z.string(),
    status: TaskStatus,
    parkedReason: ParkReason.optional(),
    parkedDetail: z.string().optional(),
    legId: z.string().optional().describe("The open leg, while one runs."),
    agent: z.string().optional(),
    model: z.string().optional(),
    parentTaskId: z.string().optional(),
    forkedFrom: ForkedFrom.optional(),
    scores: TaskScores.optional(),
    metadata: z.record(z.string(), JsonValue).optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastSeq: z.number().int().describe("Seq of the last stored event: `after` for the event stream."),
    usage: Usage,
    price: TaskModelPrice.optional().describe(
      "The server's quota price for the task's model, when it has one: what the list's `costUsd` is counted at.",
    ),
    prices: z
      .record(z.string(), TaskModelPrice)
      .optional()
      .describe(
        "The server's quota prices by model id or prefix (a model's price is that of the longest key its id, without the provider prefix, starts with): the studio prices each turn at the model that ran it (`model_turn.model`, else the task's model, which a fork may change). Absent when the server has no prices.",
      ),
    result: z.string().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    pendingApprovals: z.array(PendingApproval),
    children: z.array(ChildTask),
  }),
);

export type TaskDetailBody = z.infer<typeof TaskDetail>;
export type TaskListItemBody = z.infer<typeof TaskListItem>;
export { idSchema };

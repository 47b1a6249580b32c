/** Request and response bodies of the task actions: inputs, approvals, interrupt, cancel, resume. */
import { z } from "zod";
import { idSchema, TaskStatus, textOrParts } from "./common.ts";
import { named } from "./registry.ts";

export const SendInputRequest = named(
  "SendInputRequest",
  z.strictObject({
    text: textOrParts("The input."),
    carrier: z
      .enum(["steer", "nextTurn", "wake"])
      .optional()
      .describe(
        "Default `steer`; a completed or failed task is continued as a follow-up that wakes it (`wake`), as `agent.send` does.",
      ),
    policy: z.enum(["steer", "queue", "interrupt", "reject"]).optional().describe("What to do while a leg runs."),
    legId: idSchema
      .optional()
      .describe("The leg it is meant for: if that leg has ended it is parked, not applied to another."),
    lane: z
      .enum(["user", "supervisor", "external"])
      .optional()
      .describe("Default `user`; `supervisor` needs the supervisor role; `external` needs `from` and is fenced."),
    from: z.string().optional().describe("Who the relayed third-party text is from (external lane only)."),
    inputId: idSchema.optional().describe("Idempotency key: an input already recorded under it is not recorded again."),
  }),
);

export const SendInputResponse = named(
  "SendInputResponse",
  z.object({ inputId: z.string(), delivery: z.enum(["received", "parked", "applied", "dropped"]) }),
);

export const DecideApprovalRequest = named(
  "DecideApprovalRequest",
  z.strictObject({
    decision: z.enum(["approve", "deny"]),
    digest: z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256"),
    reason: z.string().optional(),
    scope: z
      .enum(["call", "tool-for-task"])
      .optional()
      .describe("`tool-for-task` also allows later calls of this tool."),
  }),
);

export const DecideApprovalResponse = named(
  "DecideApprovalResponse",
  z.object({ callId: z.string(), decision: z.enum(["approve", "deny"]), digest: z.string() }),
);

export const CancelRequest = named("CancelRequest", z.strictObject({ reason: z.string().optional() }));

export const EmptyRequest = named("EmptyRequest", z.strictObject({}));

export const InterruptResponse = named(
  "InterruptResponse",
  z.object({ taskId: z.string(), interrupted: z.boolean().describe("False when no leg was running.") }),
);

export const CancelResponse = named("CancelResponse", z.object({ taskId: z.string(), cancelled: z.literal(true) }));

export const ResumeResponse = named("ResumeResponse", z.object({ taskId: z.string(), status: TaskStatus }));

/** The bodies of `GET /v1/approvals`: the caller's approvals inbox. */
import { callProvenanceSchema } from "@sema-agent/core/protocol";
import { z } from "zod";
import { JsonValue } from "./common.ts";
import { named } from "./registry.ts";

export const ApprovalsQuery = z.strictObject({
  cursor: z.string().min(1).max(1100).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const InboxApproval = named(
  "InboxApproval",
  z.object({
    taskId: z.string(),
    objective: z.string(),
    agent: z.string().optional(),
    callId: z.string(),
    name: z.string(),
    digest: z.string().describe("SHA-256 of `inputJson`; a decision must name it."),
    inputJson: z.string().describe("The call's input as canonical JSON, exactly as it will run."),
    input: JsonValue,
    provenance: callProvenanceSchema.optional(),
    requestedAt: z.string().describe("When the call was held for approval (its `approval_requested`)."),
  }),
  "A call waiting for a decision: `PendingApproval`'s fields and its task. Decide it with `POST /v1/tasks/{taskId}/approvals/{callId}`.",
);

export const ApprovalInbox = named(
  "ApprovalInbox",
  z.object({
    approvals: z.array(InboxApproval),
    nextCursor: z
      .string()
      .optional()
      .describe("Pass as `cursor` for the next page; absent on the last. A page may be short and still have one."),
  }),
);

export type InboxApprovalBody = z.infer<typeof InboxApproval>;

/**
 * Approvals as AG-UI interrupts. A call waiting for a person ends the run with an interrupt whose
 * id is the call's id, carrying the call and Sema's digest of its input; the next run's `resume`
 * entry for it is the decision, checked like `/v1`'s (digest, approver role, principal). A
 * `cancelled` entry is a denial.
 */
import type { Interrupt } from "@ag-ui/core";
import type { ApprovalState } from "@sema-agent/core";
import { z } from "zod";
import { badRequest } from "../http-error.ts";
import type { DecideApprovalRequest } from "../schemas/actions.ts";
import type { AgUiResumeEntry } from "./run-input.ts";

/** The reason an approval interrupt carries. */
export const APPROVAL_REASON = "tool_approval";

/** What a resolved approval interrupt takes as its `payload`. */
export const ApprovalPayload = z.strictObject({
  approved: z.boolean(),
  /** The digest the interrupt carried: the decision is bound to exactly that input. */
  digest: z.string().regex(/^[0-9a-f]{64}$/, "must be the interrupt's digest (lowercase hex SHA-256)"),
  reason: z.string().optional(),
  /** `tool-for-task`: the approval also stands for later calls of the same tool in this thread. */
  scope: z.enum(["call", "tool-for-task"]).optional(),
});

function parsedInput(inputJson: string): unknown {
  try {
    return JSON.parse(inputJson);
  } catch {
    return inputJson;
  }
}

/** The interrupt that asks for a decision on `approval`. */
export function approvalInterrupt(approval: ApprovalState): Interrupt {
  return {
    id: approval.callId,
    reason: APPROVAL_REASON,
    message: `Approve the call of ${approval.name}?`,
    toolCallId: approval.callId,
    responseSchema: {
      type: "object",
      properties: {
        approved: { type: "boolean" },
        digest: { const: approval.digest },
        reason: { type: "string" },
        scope: { enum: ["call", "tool-for-task"] },
      },
      required: ["approved", "digest"],
      additionalProperties: false,
    },
    metadata: {
      toolName: approval.name,
      input: parsedInput(approval.inputJson) as never,
      inputJson: approval.inputJson,
      digest: approval.digest,
      // Why the provenance policy held it: the untrusted spans its arguments came from.
      ...(approval.provenance === undefined ? {} : { provenance: approval.provenance as never }),
    },
  };
}

/** A decision a `resume` entry makes, for `decideTaskApproval`; `path` is where it is in the body. */
export interface DecisionRequest {
  callId: string;
  body: z.output<typeof DecideApprovalRequest>;
  path: string;
}

/** Matches no digest: a decision on a call that waits for none is refused by core (not found). */
const NO_DIGEST = "0".repeat(64);

/**
 * The decisions the run's `resume` entries make, checked for shape (core checks the rest). A
 * cancelled entry carries no answer, so its denial is bound to the digest of the call it names.
 */
export function decisionsOf(entries: readonly AgUiResumeEntry[], pending: readonly ApprovalState[]): DecisionRequest[] {
  return entries.map((entry, index) => {
    const path = `body.resume.${index}`;
    if (entry.status === "cancelled") {
      const digest = pending.find((approval) => approval.callId === entry.interruptId)?.digest ?? NO_DIGEST;
      return {
        callId: entry.interruptId,
        body: { digest, decision: "deny", reason: "The person cancelled the approval." },
        path: `${path}.payload`,
      };
    }
    const parsed = ApprovalPayload.safeParse(entry.payload);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = [`${path}.payload`, ...(issue?.path ?? []).map(String)].join(".");
      throw badRequest(`${where}: ${issue?.message ?? "invalid"}`, where);
    }
    const { approved, digest, reason, scope } = parsed.data;
    return {
      callId: entry.interruptId,
      body: { digest, decision: approved ? "approve" : "deny", reason, scope },
      path: `${path}.payload`,
    };
  });
}

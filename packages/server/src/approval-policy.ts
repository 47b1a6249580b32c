/**
 * Who may decide an approval through the API. By default a token needs the `approver` role of
 * the task's principal: a verified token without it may run and steer tasks but not decide their
 * calls. An agent (or the whole server) may relax this to any verified actor of the task's
 * principal, core's own default. A relayed, unverified speaker (`X-Sema-Speaker`) may decide
 * only through a token with the approver role: the role is the token's owner vouching for its
 * front end's people. The decision is attributed to whoever spoke.
 */
import type { CanApprove } from "@sema-agent/core";
import type { Caller } from "./ingress/caller.ts";

/**
 * `approver-role`: only a token with the `approver` role (default). `any-verified-actor`: also
 * any verified token of the task's principal.
 */
export type ApproverRule = "approver-role" | "any-verified-actor";

/** The server's approver rule, and per agent name the agents that differ from it. */
export interface ApproverSettings {
  /** Default `approver-role`. */
  default?: ApproverRule;
  agents?: Readonly<Record<string, ApproverRule>>;
}

/** The approval policy for `settings`: per caller, a `CanApprove` for core's `decideApproval`. */
export function approvalPolicy(settings: ApproverSettings = {}): (caller: Caller) => CanApprove {
  const rule = (agent: string | undefined): ApproverRule =>
    (agent === undefined ? undefined : settings.agents?.[agent]) ?? settings.default ?? "approver-role";
  return (caller) => (actor, principal, call) => {
    if (principal !== call.taskPrincipal || principal !== caller.principal) return false;
    if (caller.roles.has("approver")) return true;
    return actor.verified === true && rule(call.taskAgent) === "any-verified-actor";
  };
}

/** The default policy: deciding needs the `approver` role. */
export const defaultApprovalPolicy: (caller: Caller) => CanApprove = approvalPolicy();

/**
 * Who may decide an approval through the API. Core's default: the task's own principal through
 * a verified actor (the token speaking for itself). A token with the approver role of the same
 * principal may also decide when it relays a person (`X-Sema-Speaker`): the role is the token's
 * owner vouching for its front end's people. The decision is attributed to whoever spoke.
 */
import { type CanApprove, defaultCanApprove } from "@sema-agent/core";
import type { Caller } from "./ingress/caller.ts";

export function defaultApprovalPolicy(caller: Caller): CanApprove {
  return (actor, principal, call) =>
    defaultCanApprove(actor, principal, call) ||
    (caller.roles.has("approver") && principal === call.taskPrincipal && principal === caller.principal);
}

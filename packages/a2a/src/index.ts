/**
 * `@sema-agent/a2a`: Sema as an A2A client. `delegateA2A` is a tool that sends a sub-task to a
 * remote A2A agent (official `@a2a-js/sdk` client, JSON-RPC or HTTP+JSON) and waits for it
 * durably: a crash while the remote agent works reattaches to its task instead of sending it again.
 *
 * @module @sema-agent/a2a
 */
export { type A2AFailureReason, A2AToolError, type A2AToolErrorOptions } from "./a2a-tool-error.ts";
export { DEFAULT_TOOL_NAME, delegateA2A } from "./delegate-a2a.ts";
export type { DelegateA2AInput } from "./delegation-call.ts";
export type { A2AProgress, A2AToken, A2ATransport, DelegateA2AOptions } from "./options.ts";

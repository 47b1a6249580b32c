/**
 * `@sema-agent/server`: Sema's serving layer — the `/v1` HTTP/SSE API (`createApp`) and the token
 * ingress that authenticates callers and mints attribution. The protocols served beside `/v1` are
 * opt-in, each on its subpath (`/a2a`, `/mcp`, `/ag-ui`, `/ui-stream`, `/console`), and `serve`,
 * which runs the API beside a worker pool on Node's http server, is `@sema-agent/server/node`.
 *
 * @module @sema-agent/server
 */

// What `createApp` and `serve` take and return, from the worker package they build on: the
// registry from its own subpath (nothing of the pool, nothing of Node), the pool's types only.
export type { StopResult, WorkerPool, WorkSignal } from "@sema-agent/worker";
export { type AgentRegistry, createAgentRegistry } from "@sema-agent/worker/registry";
export { API_VERSION, type AppOptions, apiRoutes, createApp } from "./app.ts";
export type { AppEnv } from "./app-env.ts";
export { type ApproverRule, type ApproverSettings, approvalPolicy, defaultApprovalPolicy } from "./approval-policy.ts";
export { type EphemeralListener, EventHub } from "./events/event-hub.ts";
export { type ApiErrorBody, type ApiErrorCode, HttpError, type ServerErrorCode } from "./http-error.ts";
export type { Caller, Credentials, Ingress } from "./ingress/caller.ts";
export { ensureFirstToken, LOCAL_PRINCIPAL } from "./ingress/first-token.ts";
// The SQL token stores are subpaths, so a deployment loads only its own database's:
// `@sema-agent/server/sqlite-tokens` (node:sqlite) and `@sema-agent/server/postgres-tokens`.
export { MemoryTokenStore } from "./ingress/memory-token-store.ts";
export { type RevocationListener, RevocationListeners } from "./ingress/revocation-listeners.ts";
export { sanitizeText } from "./ingress/sanitize.ts";
export { SPEAKER_HEADER } from "./ingress/speaker.ts";
export { createTokenIngress, TOKEN_ISSUER } from "./ingress/token-ingress.ts";
export {
  type CreatedToken,
  type CreateTokenInput,
  hashToken,
  ROLES,
  type Role,
  type TokenRecord,
  type TokenStore,
} from "./ingress/token-store.ts";
export { DEFAULT_LIMITS, type Limits } from "./limits.ts";
export type { WorkersOptions } from "./server-options.ts";
export { type ProtocolContext, protocolNames, type ServerProtocol } from "./server-protocol.ts";

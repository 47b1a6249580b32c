/**
 * `@sema-agent/server`: Sema's serving layer — the HTTP/SSE API (`createApp`), the token ingress
 * that authenticates callers and mints attribution, and `serve`, which runs the API beside a worker
 * pool from `@sema-agent/worker`.
 *
 * @module @sema-agent/server
 */

// What `createApp` and `serve` take and return, from the worker package they build on; the pool
// itself (`startWorkers`) is imported from `@sema-agent/worker`.
export {
  type AgentRegistry,
  createAgentRegistry,
  type StopResult,
  type WorkerPool,
  type WorkSignal,
} from "@sema-agent/worker";
// The A2A server is mounted by `createApp`; these are its push notifications' parts. The SQLite
// config store is the subpath `@sema-agent/server/sqlite-a2a-push`.
export type { A2AOptions } from "./a2a/a2a-routes.ts";
export { MAX_PUSH_CONFIGS_PER_TASK } from "./a2a/push-config-check.ts";
export { MemoryPushConfigStore, type PushConfig, type PushConfigStore } from "./a2a/push-config-store.ts";
export {
  PushConfigDroppedError,
  PushDispatcher,
  type PushDispatcherOptions,
  signPush,
  verifyPush,
} from "./a2a/push-dispatcher.ts";
export type { PushSender } from "./a2a/push-send.ts";
export { tokenLiveness } from "./a2a/push-token-check.ts";
export type { PushResolver, PushTarget, PushUrlPolicy, ResolvedAddress } from "./a2a/push-url.ts";
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
export { type Listening, type ListenOptions, listen } from "./listen.ts";
export { MCP_PATH } from "./mcp/http-mount.ts";
export { MCP_SERVER_INFO } from "./mcp/mcp-server.ts";
export { type McpStdio, type McpStdioOptions, serveMcpStdio } from "./mcp/stdio.ts";
export { type ServeOptions, type Serving, serve } from "./serve.ts";

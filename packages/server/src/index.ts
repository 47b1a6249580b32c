/**
 * `@sema-agent/server`: Sema's serving layer — the HTTP/SSE API (`createApp`), the token ingress
 * that authenticates callers and mints attribution, and the worker pool that runs tasks' legs.
 */

export { API_VERSION, type AppOptions, apiRoutes, createApp } from "./app.ts";
export type { AppEnv } from "./app-env.ts";
export { type ApproverRule, type ApproverSettings, approvalPolicy, defaultApprovalPolicy } from "./approval-policy.ts";
export { type EphemeralListener, EventHub } from "./events/event-hub.ts";
export { type ApiErrorBody, type ApiErrorCode, HttpError, type ServerErrorCode } from "./http-error.ts";
export type { Caller, Credentials, Ingress } from "./ingress/caller.ts";
export { ensureFirstToken, LOCAL_PRINCIPAL } from "./ingress/first-token.ts";
export { MemoryTokenStore } from "./ingress/memory-token-store.ts";
export {
  PostgresTokenStore,
  type PostgresTokenStoreOptions,
  type SqlPool,
} from "./ingress/postgres-token-store.ts";
export { sanitizeText } from "./ingress/sanitize.ts";
export { SPEAKER_HEADER } from "./ingress/speaker.ts";
export { SqliteTokenStore, type SqliteTokenStoreOptions } from "./ingress/sqlite-token-store.ts";
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
export type { WorkSignal } from "./routes/deps.ts";
export { type ServeOptions, type Serving, serve } from "./serve.ts";
export { type AgentRegistry, createAgentRegistry } from "./workers/agent-registry.ts";
export { type StopResult, startWorkers, type WorkerOptions, type WorkerPool } from "./workers/worker-pool.ts";

/**
 * `@sema-agent/server/a2a`: the A2A protocol (`a2a()`) for `createApp` and `serve`, and its push
 * notifications' parts. Needs `@a2a-js/sdk` installed beside the server (an optional peer). The
 * SQL config stores are `@sema-agent/server/sqlite-a2a-push` and `…/postgres-a2a-push`.
 *
 * @module @sema-agent/server/a2a
 */
export { type A2AOptions, type A2APushSettings, a2a } from "./a2a-protocol.ts";
export { MAX_PUSH_CONFIGS_PER_TASK } from "./push-config-check.ts";
export { MemoryPushConfigStore, type PushConfig, type PushConfigStore } from "./push-config-store.ts";
export {
  PushConfigDroppedError,
  PushDispatcher,
  type PushDispatcherOptions,
  signPush,
  verifyPush,
} from "./push-dispatcher.ts";
export type { PushSender } from "./push-send.ts";
export { tokenLiveness } from "./push-token-check.ts";
export type { PushResolver, PushTarget, PushUrlPolicy, ResolvedAddress } from "./push-url.ts";

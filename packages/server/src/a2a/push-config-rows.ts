/** What the SQL push-config stores (SQLite, PostgreSQL) share: the columns and a config's values for them. */
import type { PushConfig } from "./push-config-store.ts";

/** The columns of `server_a2a_push_configs`, in the order of {@link pushConfigValues}. */
export const PUSH_CONFIG_COLUMNS =
  "task_id, config_id, principal, url, token, authentication, created_at, delivered_seq, token_id";

/** A config's values in {@link PUSH_CONFIG_COLUMNS}' order (authentication as JSON text, or null; no token id: null). */
export function pushConfigValues(config: PushConfig): (string | number | null)[] {
  return [
    config.taskId,
    config.id,
    config.principal,
    config.url,
    config.token,
    config.authentication === undefined ? null : JSON.stringify(config.authentication),
    config.createdAt,
    config.deliveredSeq,
    config.tokenId ?? null,
  ];
}

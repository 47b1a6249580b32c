/**
 * What a push config may hold, checked when it is registered and again before each delivery (a
 * row stored before these checks existed): an `Authorization` scheme that is one HTTP token, and
 * credentials with no control character, so nothing a client registers can split or add a header;
 * and at most {@link MAX_PUSH_CONFIGS_PER_TASK} configs on one task.
 */
import { InvalidInputError } from "@sema-agent/core/protocol";

/** The most webhooks one task may have: each state change is one POST per config. */
export const MAX_PUSH_CONFIGS_PER_TASK = 32;
const SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}$/;
const CREDENTIALS_MAX = 4096;
// C0 controls (CR, LF, NUL, TAB …) and DEL: none belongs in a header value a client chose.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Throws `InvalidInputError` (reason `push-authentication`) unless `authentication` is safe to send. */
export function checkPushAuthentication(authentication: { scheme: string; credentials: string }): void {
  if (!SCHEME.test(authentication.scheme))
    throw new InvalidInputError(
      "params.authentication.scheme must be one HTTP auth scheme: a letter then up to 63 letters, digits or !#$%&'*+.^_`|~-",
      { reason: "push-authentication", field: "authentication.scheme" },
    );
  if (authentication.credentials.length > CREDENTIALS_MAX || CONTROL.test(authentication.credentials))
    throw new InvalidInputError(
      `params.authentication.credentials must be at most ${CREDENTIALS_MAX} characters with no control character`,
      { reason: "push-authentication", field: "authentication.credentials" },
    );
}

/** Throws `InvalidInputError` (reason `push-config-limit`) when a task already has the most configs. */
export function checkPushConfigCount(existing: number): void {
  if (existing >= MAX_PUSH_CONFIGS_PER_TASK)
    throw new InvalidInputError(
      `the task already has ${MAX_PUSH_CONFIGS_PER_TASK} push notification configs, the most it may have`,
      { reason: "push-config-limit", limit: MAX_PUSH_CONFIGS_PER_TASK },
    );
}

/**
 * `@sema-agent/core`: the protocol, the pure core and the harness of Sema, a stateless,
 * task-oriented AI agent core. Test helpers live on `@sema-agent/core/testing`.
 */

export {
  buildAppliedHumanInputEvent,
  buildHumanInputEvent,
  frameMidTurnUserInput,
  type HumanInputFrame,
  LABEL_ID_MAX_CHARS,
  projectHumanInput,
  speakerLabel,
} from "./core/human-input-projection.ts";
export { attrEscape, CUT_MARK, inlineUntrusted } from "./core/neutralizers.ts";
export {
  type DelimitUntrustedOptions,
  defaultRandomBytes,
  delimitUntrusted,
  formatHookFeedback,
  HEADER_VALUE_MAX_CHARS,
  type RandomBytes,
} from "./core/trust-framing.ts";
export type { ActorAssertion } from "./internal/llm.ts";
export type {
  CoreCarrier,
  HumanInputDelivery,
  HumanInputEvent,
  HumanInputPolicy,
  HumanInputSource,
  TaskEventIdentity,
} from "./protocol/human-input.ts";

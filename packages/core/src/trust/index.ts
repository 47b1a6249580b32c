/**
 * `@sema-agent/core/trust`: the machinery behind what the model may trust, for hosts and adapters
 * that bring outside text in and for whoever audits the policy — the one treatment of human text
 * at an ingress (`sanitizeHumanText`), the neutralizers and the untrusted fence, the provenance of
 * each transcript span as the fold derives it (`provenanceAt`), the classification of a tool call's
 * arguments by where they came from (`classifyToolCall`, `ProvenanceIndex`), the hosts a call of an
 * egress tool reaches (`callDestinations`, `disallowedDestinations`), and the provenance policy's table
 * (`DEFAULT_PROVENANCE_RULES`, `provenanceRule`, `effectsOf`), and quarantined reading
 * (`quarantinedReader`: a tool-less reader whose schema-checked answer is data). An application configures the policy
 * with `Agent.provenancePolicy` and `Tool.effects` (their types are on the root too); the
 * human-input projection is on the root.
 *
 * @module @sema-agent/core/trust
 */

export {
  type ClassifiedCall,
  classifyToolCall,
  type ProvenanceContext,
  ProvenanceIndex,
  type ProvenanceOptions,
} from "../core/call-provenance.ts";
export { callDestinations, disallowedDestinations, isAllowedHost } from "../core/egress.ts";
export {
  type EntryProvenance,
  type ProvenanceSource,
  provenanceAt,
  type SpanProvenance,
  untrustedSeqs,
} from "../core/entry-provenance.ts";
export { sanitizeHumanText } from "../core/human-text.ts";
export { attrEscape, inlineUntrusted } from "../core/neutralizers.ts";
export { DEFAULT_PROVENANCE_RULES, provenanceRule } from "../core/provenance-policy.ts";
export {
  fieldTainted,
  type QuarantineTrust,
  type ReaderFields,
  trustedReaderValues,
} from "../core/quarantine.ts";
export { type DelimitUntrustedOptions, delimitUntrusted, type RandomBytes } from "../core/trust-framing.ts";
export { effectsOf } from "../harness/tools/provenance-gate.ts";
export {
  MAX_READER_STRING,
  type QuarantinedReaderOptions,
  quarantinedReader,
  readerFieldsOf,
} from "../harness/tools/quarantined-reader.ts";
export type {
  CallClassification,
  CallProvenance,
  EffectRules,
  HeldSpan,
  Lane,
  ProvenancePolicy,
  ProvenanceRule,
  QuarantineRules,
  ReaderFieldKind,
  TaintMatch,
  ToolEffects,
} from "../protocol/provenance.ts";

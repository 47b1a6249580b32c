/**
 * The provenance policy's table (docs/guide/security.md "The policy"): what happens to a call of a
 * tool of some effect class, classified clean, exposed or tainted. Pure.
 */
import type {
  CallClassification,
  EffectRules,
  ProvenancePolicy,
  ProvenanceRule,
  ToolEffects,
} from "../protocol/provenance.ts";

/**
 * The defaults: a tainted call of a tool that changes local state or acts outside needs a
 * person's approval; everything else runs (a clean call always does).
 */
export const DEFAULT_PROVENANCE_RULES: Readonly<
  Record<ToolEffects, Readonly<Record<keyof EffectRules, ProvenanceRule>>>
> = Object.freeze({
  none: Object.freeze({ exposed: "allow", tainted: "allow" }),
  local: Object.freeze({ exposed: "allow", tainted: "approve" }),
  external: Object.freeze({ exposed: "allow", tainted: "approve" }),
});

/** The rule for a call: `policy` (absent: the defaults; `"allow"`: off) for its effects and classification. */
export function provenanceRule(
  policy: ProvenancePolicy | undefined,
  effects: ToolEffects,
  classification: CallClassification,
): ProvenanceRule {
  if (classification === "clean" || policy === "allow") return "allow";
  return policy?.[effects]?.[classification] ?? DEFAULT_PROVENANCE_RULES[effects][classification];
}

/** Whether any rule of `policy` can hold or refuse an exposed call (then exposure is worth computing). */
export function policyWatchesExposure(policy: ProvenancePolicy | undefined): boolean {
  if (policy === undefined || policy === "allow") return false;
  return (["none", "local", "external"] as const).some((effects) => (policy[effects]?.exposed ?? "allow") !== "allow");
}

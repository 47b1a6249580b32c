/**
 * Quarantined reading (docs/guide/security.md "Quarantined reading"): which values of a reader's
 * schema-checked answer the provenance policy counts as trusted. Pure. A reader's answer is
 * untrusted as a whole (its result is fenced like any untrusted tool's); the policy may then trust
 * the values of its closed fields, which the reader could only pick, never write: an enum's
 * option (and a boolean, a two-option enum) with `trustEnums`, a number with `trustNumbers`. A
 * string is the reader's copy of untrusted text and is never trusted.
 */
import type { JsonValue } from "../protocol/json.ts";
import type { QuarantineRules, ReaderFieldKind } from "../protocol/provenance.ts";

/** A reader's answer shape: each field's kind, by name. */
export type ReaderFields = { readonly [field: string]: ReaderFieldKind };

/** What the policy trusts of a reader's answer (`ProvenancePolicy.quarantine`); both default false. */
export type QuarantineTrust = QuarantineRules;

/** Whether a field of `kind` stays tainted under `trust`: a string always does. */
export function fieldTainted(kind: ReaderFieldKind, trust: QuarantineTrust | undefined): boolean {
  if (kind === "enum" || kind === "boolean") return trust?.trustEnums !== true;
  if (kind === "number") return trust?.trustNumbers !== true;
  return true;
}

/** Each field of `fields` and whether it stays tainted under `trust`. */
export function fieldTaint(
  fields: ReaderFields,
  trust: QuarantineTrust | undefined,
): { [field: string]: "tainted" | "trusted" } {
  const out: { [field: string]: "tainted" | "trusted" } = {};
  for (const [field, kind] of Object.entries(fields)) out[field] = fieldTainted(kind, trust) ? "tainted" : "trusted";
  return out;
}

/**
 * The values of a recorded reader answer (`text`, the JSON object its result holds) that count as
 * trusted under `trust`, as text: only fields declared in `fields` whose value has the declared
 * kind (an enum's a string, a number's a finite number). Anything else, or text that is not such
 * an object, gives none: the answer stays untrusted.
 */
export function trustedReaderValues(fields: ReaderFields, text: string, trust: QuarantineTrust | undefined): string[] {
  if (trust?.trustEnums !== true && trust?.trustNumbers !== true) return [];
  let answer: JsonValue;
  try {
    answer = JSON.parse(text) as JsonValue;
  } catch {
    return [];
  }
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return [];
  const out: string[] = [];
  for (const [field, value] of Object.entries(answer)) {
    const kind = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (kind === undefined || fieldTainted(kind, trust)) continue;
    if (kind === "enum" && typeof value === "string") out.push(value);
    else if (kind === "number" && typeof value === "number" && Number.isFinite(value)) out.push(String(value));
  }
  return out;
}

/**
 * Provenance (design §5, docs/guide/security.md): where each span of the transcript came from,
 * how a tool call's arguments relate to the untrusted spans the model saw, and the policy that
 * holds a side effect an untrusted source asked for. The schemas validate what is recorded on
 * `approval_requested` (v 2) and an agent's `provenancePolicy`; the types derive from them.
 */
import { z } from "zod";

const count = z.number().int().nonnegative();

/** The lanes text reaches the model on (design §5), plus `system` for machine text and trusted tools. */
export const laneSchema = z.enum(["user", "supervisor", "operator", "external", "system"]);
/** A lane (see {@link laneSchema}). */
export type Lane = z.infer<typeof laneSchema>;

/**
 * What a tool may do, for the provenance policy: `none` (reads only), `local` (changes local
 * state: files, a database), `external` (sends or spends outside: mail, payments, web requests).
 */
export const toolEffectsSchema = z.enum(["none", "local", "external"]);
/** A tool's effect class (see {@link toolEffectsSchema}). */
export type ToolEffects = z.infer<typeof toolEffectsSchema>;

/**
 * How a model turn's tool call relates to untrusted content: `clean` (none in the context the
 * model saw), `exposed` (some was there), `tainted` (an argument carries a run of it).
 */
export const callClassificationSchema = z.enum(["clean", "exposed", "tainted"]);
/** A call's classification (see {@link callClassificationSchema}). */
export type CallClassification = z.infer<typeof callClassificationSchema>;

/** What the policy does with a call: run it, ask a person first, or refuse it (the model is told). */
export const provenanceRuleSchema = z.enum(["allow", "approve", "deny"]);
/** One rule of the provenance policy (see {@link provenanceRuleSchema}). */
export type ProvenanceRule = z.infer<typeof provenanceRuleSchema>;

/** The rules for one effect class: for exposed calls and for tainted ones (a clean call always runs). */
export const effectRulesSchema = z.strictObject({
  exposed: provenanceRuleSchema.optional(),
  tainted: provenanceRuleSchema.optional(),
});
/** The rules for one effect class (see {@link effectRulesSchema}). */
export type EffectRules = z.infer<typeof effectRulesSchema>;

const HOST = /^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$|^\[[0-9a-f:.]+\]$/;

/**
 * A host a tainted call of an egress tool may still reach: a hostname as the URL parser writes it
 * (lower case, punycode, no trailing dot; an IPv6 address in brackets), or `*.example.com` for
 * every subdomain of `example.com` (not the domain itself).
 */
export const egressHostSchema = z
  .string()
  .max(253)
  .regex(HOST, "a hostname in lower case (punycode for IDN), or *.domain for its subdomains");

/**
 * The egress rule (docs/guide/security.md "Egress"): what happens to a tainted call of a tool that
 * reaches the network (`egress: true`), whatever its effect class (default `approve`), unless
 * every destination its arguments name is in `allowedHosts`.
 */
export const egressRulesSchema = z.strictObject({
  tainted: provenanceRuleSchema.optional(),
  allowedHosts: z.array(egressHostSchema).max(256).optional(),
});
/** The egress rule (see {@link egressRulesSchema}). */
export type EgressRules = z.infer<typeof egressRulesSchema>;

/**
 * The kind of one field of a quarantined reader's answer, all its schema may hold: an enum (a
 * choice among options the agent's author wrote), a number, a boolean, or a bounded string.
 */
export const readerFieldKindSchema = z.enum(["enum", "number", "boolean", "string"]);
/** The kind of one field of a reader's answer (see {@link readerFieldKindSchema}). */
export type ReaderFieldKind = z.infer<typeof readerFieldKindSchema>;

/**
 * What the policy trusts of a quarantined reader's schema-checked answer (docs/guide/security.md
 * "Quarantined reading"): `trustEnums` counts an enum's (or a boolean's) value as trusted, since
 * the reader could only pick it among options the agent's author wrote; `trustNumbers` a number's.
 * Both default false. A string field is never trusted: it is the reader's copy of untrusted text.
 */
export const quarantineRulesSchema = z.strictObject({
  trustEnums: z.boolean().optional(),
  trustNumbers: z.boolean().optional(),
});
/** What the policy trusts of a reader's answer (see {@link quarantineRulesSchema}). */
export type QuarantineRules = z.infer<typeof quarantineRulesSchema>;

/**
 * An agent's provenance policy: rules per effect class (defaults: tainted `local` and tainted
 * `external` calls need approval, everything else runs), and how taint is found: `minChars` (N,
 * default 24) is the shortest run of untrusted text, counted after normalization, that taints an
 * argument; `minNumberDigits` (default 3) the fewest digits a number token needs;
 * `unverifiedUntrusted` (default false) counts text of an unverified speaker on the user and
 * operator lanes as untrusted too; `egress` holds tainted calls of tools that reach the network,
 * whatever their effects; `quarantine` says which values of a quarantined reader's answer count
 * as trusted. The string `"allow"` turns the policy off: unsafe, documented.
 */
export const provenancePolicySchema = z.union([
  z.literal("allow"),
  z.strictObject({
    none: effectRulesSchema.optional(),
    local: effectRulesSchema.optional(),
    external: effectRulesSchema.optional(),
    egress: egressRulesSchema.optional(),
    quarantine: quarantineRulesSchema.optional(),
    minChars: z.number().int().min(4).max(4096).optional(),
    minNumberDigits: z.number().int().min(1).max(64).optional(),
    unverifiedUntrusted: z.boolean().optional(),
  }),
]);
/** An agent's provenance policy (see {@link provenancePolicySchema}). */
export type ProvenancePolicy = z.infer<typeof provenancePolicySchema>;

/** How an argument matched untrusted text: a run of at least N characters, or a token. */
export const taintMatchSchema = z.enum(["substring", "url", "email", "domain", "path", "number"]);
/** How an argument matched untrusted text (see {@link taintMatchSchema}). */
export type TaintMatch = z.infer<typeof taintMatchSchema>;

const actor = z.strictObject({ id: z.string(), verified: z.boolean(), issuer: z.string().exactOptional() });

/**
 * One untrusted span a held call rests on: the event it was recorded by (`seq`), its lane, the
 * tool whose output it is, the speaker; for a tainted call also the argument (a JSON Pointer into
 * the input, `a + b` when the run crosses two), what matched (`match`, `text`: the argument's
 * normalized text) and an `excerpt` of the span around it, as the model read it.
 */
export const heldSpanSchema = z.strictObject({
  seq: count,
  lane: laneSchema,
  tool: z.string().exactOptional(),
  untrustedTool: z.literal(true).exactOptional(),
  actor: actor.exactOptional(),
  argument: z.string().exactOptional(),
  match: taintMatchSchema.exactOptional(),
  text: z.string().max(400).exactOptional(),
  excerpt: z.string().max(800).exactOptional(),
});
/** One untrusted span a held call rests on (see {@link heldSpanSchema}). */
export type HeldSpan = z.infer<typeof heldSpanSchema>;

/**
 * Why the provenance policy held (or refused) a call: its classification, the tool's effect
 * class, the rule that applied, and the untrusted spans it rests on (at most 8). `egress`: the
 * egress rule held it (the tool reaches the network), with the hosts its arguments name, none of
 * them allowed (at most 8; empty when it names none); recorded on `approval_requested` v 3.
 */
export const callProvenanceSchema = z.strictObject({
  classification: z.enum(["exposed", "tainted"]),
  effects: toolEffectsSchema,
  rule: z.enum(["approve", "deny"]),
  spans: z.array(heldSpanSchema).max(8),
  egress: z.strictObject({ destinations: z.array(z.string().max(300)).max(8) }).exactOptional(),
});
/** Why the provenance policy held or refused a call (see {@link callProvenanceSchema}). */
export type CallProvenance = z.infer<typeof callProvenanceSchema>;

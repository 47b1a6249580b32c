/**
 * The model-facing vocabulary shared by every ring: who spoke, and the transcript a model sees.
 */
import type { UserPart } from "./content.ts";
import type { JsonValue } from "./json.ts";

/**
 * Who spoke: the identity an ingress attaches to a piece of human text it accepted.
 *
 * **Normative: attribution, never authority.** The label rendered from an assertion tells the
 * model (and a reader of the log) who said something. No code path grants a permission, skips an
 * approval or widens a lane because of what an assertion or its label says; authority comes only
 * from the principal a leg runs for and the lane the ingress decided from credentials.
 */
export interface ActorAssertion {
  /** The speaker's id as the ingress knows it (a user id, an email, a display name). Untrusted text. */
  id: string;
  /**
   * `true` only when the ingress derived `id` from credentials it checked (a bearer token, a
   * session). A self-declared display name is `false`, and so is anything the host cannot vouch for.
   */
  verified: boolean;
  /** Who minted the assertion (`"sema-token"`, the relaying front end's own actor id, …). */
  issuer?: string;
}

/** One tool call the model asked for. `input` is the parsed arguments (or the raw text when they
 *  were not valid JSON, which the tool's schema then rejects). */
export interface ToolCall {
  callId: string;
  name: string;
  input: JsonValue;
}

/** Why a model turn ended (the AI SDK's vocabulary). */
export type FinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";

/** How a tool call ended, as the model is told. */
export type ToolResultStatus = "ok" | "error" | "denied" | "interrupted";

/**
 * One entry of the transcript the model sees (system instructions aside). Every string in it is
 * exactly the bytes the model receives: framing happened when the entry was recorded.
 */
export type TranscriptEntry =
  /** `parts`, when present, is what the model receives (text and attachments, in order); `content` is its text. */
  | { role: "user"; entryId: string; content: string; parts?: UserPart[] }
  | { role: "assistant"; text: string; reasoning?: string; toolCalls: ToolCall[] }
  | { role: "tool"; callId: string; name: string; status: ToolResultStatus; content: string };

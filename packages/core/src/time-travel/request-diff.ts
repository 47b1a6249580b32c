/**
 * What differs between a recorded model request and a replayed one, in words and bytes: which
 * parts (by their digests), and for the transcript the first entry that differs with both texts
 * around the first byte that does. The recorded transcript is rebuilt from the log (a fold up to
 * the recorded turn); the system text, tools and settings are recorded as digests only, so for
 * those the replay's side is shown.
 */
import { canonicalJson } from "../core/canonical-json.ts";
import { modelView, requestParts } from "../harness/model/request-digest.ts";
import type { ModelRequest } from "../ports/model.ts";
import type { JsonValue } from "../protocol/json.ts";
import type { RequestDigest } from "../protocol/task-event.ts";
import type { TranscriptEntry } from "../protocol/transcript.ts";

/** The parts of a request a digest names. */
export type RequestPart = "system" | "tools" | "settings" | "transcript";

const PARTS: readonly RequestPart[] = ["system", "tools", "settings", "transcript"];
const CONTEXT = 60;

/** The parts whose digests differ. */
export function differingParts(recorded: RequestDigest, replayed: RequestDigest): RequestPart[] {
  return PARTS.filter((part) => recorded[part] !== replayed[part]);
}

function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - CONTEXT);
  const end = Math.min(text.length, at + CONTEXT);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function describeEntry(entry: TranscriptEntry | undefined): string {
  if (entry === undefined) return "(none)";
  if (entry.role === "tool") return `tool result of ${entry.name} (${entry.callId})`;
  return `${entry.role} message`;
}

/** The first transcript entry that differs, with both texts around the first differing byte. */
export function transcriptDiff(recorded: readonly TranscriptEntry[], replayed: readonly TranscriptEntry[]): string {
  const length = Math.max(recorded.length, replayed.length);
  for (let i = 0; i < length; i++) {
    const a = recorded[i];
    const b = replayed[i];
    const left = a === undefined ? "" : canonicalJson(modelView(a));
    const right = b === undefined ? "" : canonicalJson(modelView(b));
    if (left === right) continue;
    const at = firstDifference(left, right);
    return [
      `transcript entry ${i + 1} of ${length} differs (recorded: ${describeEntry(a)}; replayed: ${describeEntry(b)}), from byte ${at}:`,
      `  - recorded: ${a === undefined ? "(no such entry)" : excerpt(left, at)}`,
      `  + replayed: ${b === undefined ? "(no such entry)" : excerpt(right, at)}`,
    ].join("\n");
  }
  return "the transcript entries are equal as rebuilt from the log; the recording was made by code that rendered them differently";
}

/** A readable account of how `request` differs from the recorded request. */
export function requestDiff(
  recorded: { digest: RequestDigest; transcript: readonly TranscriptEntry[] },
  replayed: { digest: RequestDigest; request: ModelRequest },
): { parts: RequestPart[]; text: string } {
  const parts = differingParts(recorded.digest, replayed.digest);
  const parts_ = requestParts(replayed.request);
  const lines: string[] = [];
  for (const part of parts) {
    const sides = `recorded sha256:${recorded.digest[part].slice(0, 12)}…, replayed sha256:${replayed.digest[part].slice(0, 12)}…`;
    if (part === "transcript") {
      lines.push(
        `transcript differs (${sides}; ${recorded.digest.entries} entries recorded, ${replayed.digest.entries} replayed)`,
      );
      lines.push(transcriptDiff(recorded.transcript, replayed.request.transcript));
    } else if (part === "system") {
      lines.push(`system instructions differ (${sides}); the replay sent:`, indent(parts_.system));
    } else if (part === "tools") {
      const names = replayed.request.tools.map((tool) => tool.name).join(", ") || "none";
      lines.push(`tool specs differ (${sides}); the replay offered: ${names}`, indent(pretty(parts_.tools)));
    } else {
      lines.push(`model settings differ (${sides}); the replay sent:`, indent(pretty(parts_.settings)));
    }
  }
  return { parts, text: lines.join("\n") };
}

function pretty(value: JsonValue): string {
  return JSON.stringify(value, null, 2);
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

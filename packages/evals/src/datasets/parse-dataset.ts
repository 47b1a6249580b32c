/**
 * Reading a dataset from JSON Lines: every line checked, a refusal naming the line and the reason
 * (`InvalidInput`), nothing half-read. Blank lines are skipped; a case without an `id` gets
 * `line-<n>`, its line number, and two cases may not share one.
 */

import { InvalidInputError, type JsonValue } from "@sema-agent/core/protocol";
import { canonicalJson } from "@sema-agent/core/store-kit";
import { type DatasetCase, datasetCaseSchema } from "./dataset-case.ts";

/** At most this many cases in a dataset. */
export const MAX_CASES = 10_000;

/** A checked dataset: its cases in file order, and the SHA-256 of their canonical JSON. */
export interface Dataset {
  cases: DatasetCase[];
  /** Lowercase hex SHA-256 of the cases as canonical JSON: the same cases, the same digest, whatever the file's spacing. */
  digest: string;
}

function refuse(line: number, reason: string): InvalidInputError {
  return new InvalidInputError(`dataset, line ${line}: ${reason}`, { line });
}

function issueText(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  if (first === undefined) return "invalid";
  return first.path.length === 0 ? first.message : `${first.path.map(String).join(".")}: ${first.message}`;
}

/** The SHA-256 of `cases` as canonical JSON, lowercase hex. */
export async function datasetDigest(cases: readonly DatasetCase[]): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(cases as unknown as JsonValue));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Check cases given as objects (the file's lines parsed), `lineOf(i)` naming where each came from. */
export async function checkCases(
  raw: readonly unknown[],
  lineOf: (index: number) => number = (i) => i + 1,
): Promise<Dataset> {
  if (raw.length === 0) throw new InvalidInputError("dataset: no cases");
  if (raw.length > MAX_CASES) throw new InvalidInputError(`dataset: at most ${MAX_CASES} cases, got ${raw.length}`);
  const cases: DatasetCase[] = [];
  const seen = new Map<string, number>();
  raw.forEach((value, i) => {
    const line = lineOf(i);
    const parsed = datasetCaseSchema.safeParse(value);
    if (!parsed.success) throw refuse(line, issueText(parsed.error.issues));
    const { id = `line-${line}`, ...rest } = parsed.data;
    const before = seen.get(id);
    if (before !== undefined) throw refuse(line, `case id ${id} is taken by line ${before}`);
    seen.set(id, line);
    const checked: DatasetCase = { id, input: rest.input };
    if (rest.expected !== undefined) checked.expected = rest.expected;
    if (rest.attachments !== undefined) checked.attachments = rest.attachments;
    if (rest.inputs !== undefined) checked.inputs = rest.inputs;
    if (rest.metadata !== undefined) checked.metadata = rest.metadata;
    cases.push(checked);
  });
  return { cases, digest: await datasetDigest(cases) };
}

/** Parse and check a dataset file (JSON Lines). */
export async function parseDataset(text: string): Promise<Dataset> {
  const lines = text.split("\n");
  const raw: unknown[] = [];
  const numbers: number[] = [];
  lines.forEach((source, i) => {
    const trimmed = source.trim();
    if (trimmed === "") return;
    try {
      raw.push(JSON.parse(trimmed));
    } catch {
      throw refuse(i + 1, "not JSON");
    }
    numbers.push(i + 1);
  });
  return checkCases(raw, (index) => numbers[index] ?? index + 1);
}

/** A dataset as JSON Lines (one canonical case a line), as `parseDataset` reads it back. */
export function formatDataset(cases: readonly DatasetCase[]): string {
  return cases.map((c) => `${canonicalJson(c as unknown as JsonValue)}\n`).join("");
}

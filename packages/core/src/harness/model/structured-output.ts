/**
 * Structured output: the JSON Schema the model is asked for, and the check of its final answer.
 * The schema that validates is the task's recorded override when it has one (rebuilt from its JSON
 * Schema, so every process checks alike), otherwise the agent's own.
 */
import { z } from "zod";
import type { StandardIssue, StandardSchemaV1 } from "../../ports/standard-schema.ts";
import type { JsonValue } from "../../protocol/json.ts";
import type { OutputSchema } from "../agent.ts";
import { deriveJsonSchema } from "../tools/define-tool.ts";

type JsonObject = { [key: string]: JsonValue };

/** Default number of answers the model may give before an invalid one fails the task. */
export const DEFAULT_OUTPUT_ATTEMPTS = 2;

function isStandardSchema(schema: OutputSchema): schema is StandardSchemaV1 {
  return typeof schema === "object" && schema !== null && "~standard" in schema;
}

const jsonSchemas = new WeakMap<object, JsonObject>();

/** The JSON Schema of an output schema (computed once per schema object). */
export function outputJsonSchema(schema: OutputSchema): JsonObject {
  const known = jsonSchemas.get(schema);
  if (known !== undefined) return known;
  const derived = isStandardSchema(schema)
    ? deriveJsonSchema(schema, "the output schema", "pass a JSON Schema object instead")
    : (({ $schema: _dialect, ...rest }) => rest)(schema as JsonObject);
  jsonSchemas.set(schema, derived);
  return derived;
}

const validators = new WeakMap<object, StandardSchemaV1>();

function validatorOf(schema: OutputSchema): StandardSchemaV1 {
  if (isStandardSchema(schema)) return schema;
  const known = validators.get(schema);
  if (known !== undefined) return known;
  const built = z.fromJSONSchema(schema as JsonObject);
  validators.set(schema, built);
  return built;
}

/** What the check of a final answer found (`unusable`: the schema itself cannot check anything). */
export type OutputCheck =
  | { ok: true; json: string }
  | { ok: false; paths: string[]; problems: string[] }
  | { ok: false; unusable: string };

/** At most this many problems are listed to the model and in the failure (the rest are counted). */
const MAX_PROBLEMS = 10;

/**
 * Whether a JSON Schema can check answers (`z.fromJSONSchema` refuses some constructs): the
 * reason it cannot, or undefined. `startTask` asks before it records an override.
 */
export function unusableJsonSchema(schema: JsonObject): string | undefined {
  try {
    validatorOf(schema);
    return undefined;
  } catch (error) {
    return `the output schema cannot check answers: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `$.items[0].price`: a JSON path of an issue, `$` for the whole answer. */
function pathOf(issue: StandardIssue): string {
  let path = "$";
  for (const segment of issue.path ?? []) {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    path +=
      typeof key === "number"
        ? `[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
          ? `.${String(key)}`
          : `[${JSON.stringify(String(key))}]`;
  }
  return path;
}

/** The answer's JSON: the whole text, or a fenced block of it (models without native JSON mode). */
function parseAnswer(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  if (fenced?.[1] !== undefined) candidates.push(fenced[1].trim());
  let message = "the answer is empty";
  for (const candidate of candidates) {
    if (candidate === "") continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch (error) {
      message = `the answer is not JSON (${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return { ok: false, message };
}

/**
 * Check a final answer against the schema. The result is the answer's JSON re-serialized compactly
 * (what the model said, not the schema's transformed output, which need not be JSON).
 */
export async function checkOutput(schema: OutputSchema, text: string): Promise<OutputCheck> {
  const parsed = parseAnswer(text);
  if (!parsed.ok) return { ok: false, paths: ["$"], problems: [`at $: ${parsed.message}`] };
  let validator: StandardSchemaV1;
  try {
    validator = validatorOf(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, unusable: `the output schema cannot check answers: ${reason}` };
  }
  const result = await validator["~standard"].validate(parsed.value);
  if (result.issues === undefined) return { ok: true, json: JSON.stringify(parsed.value) };
  const paths: string[] = [];
  const problems: string[] = [];
  for (const issue of result.issues) {
    const path = pathOf(issue);
    if (!paths.includes(path)) paths.push(path);
    problems.push(`at ${path}: ${issue.message}`);
  }
  return { ok: false, paths, problems };
}

/** The problems to list, the first {@link MAX_PROBLEMS} and a count of the rest. */
export function listedProblems(problems: readonly string[]): string[] {
  if (problems.length <= MAX_PROBLEMS) return [...problems];
  return [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more`];
}

/** What the model is told when its answer failed the schema. */
export function correctionText(problems: readonly string[]): string {
  return [
    "Your final answer does not match the required output schema:",
    ...listedProblems(problems).map((problem) => `- ${problem}`),
    "Answer again with only the JSON value that matches the schema.",
  ].join("\n");
}

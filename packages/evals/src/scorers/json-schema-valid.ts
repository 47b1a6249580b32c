/**
 * `jsonSchemaValid`: the output's JSON validates against a JSON Schema. The schema is turned into
 * a validator once, where the scorer is defined, by zod's `z.fromJSONSchema` (what core uses to
 * check a structured answer), so a schema it cannot use is refused there.
 */
import type { JsonValue } from "@sema-agent/core";
import { ConfigError } from "@sema-agent/core/protocol";
import { defineScorer, type Scorer } from "@sema-agent/core/scoring";
import { z } from "zod";
import { childPath, isJsonObject, shown } from "./json-values.ts";
import { noOutput } from "./scorer-kit.ts";

/** At most this many problems are named in a reason (the rest are counted). */
const LISTED = 5;

/** `$.items[0].price`: where an issue is, `$` for the whole answer. */
function pathOf(path: readonly PropertyKey[] | undefined): string {
  let said = "$";
  for (const key of path ?? []) said = childPath(said, typeof key === "number" ? key : String(key));
  return said;
}

/** The validator of `schema`, or `ConfigError` saying why there is none. */
function validatorOf(schema: { [key: string]: JsonValue }): z.ZodType {
  if (!isJsonObject(schema as JsonValue))
    throw new ConfigError("jsonSchemaValid", [{ path: "schema", message: "must be a JSON Schema object" }]);
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError("jsonSchemaValid", [{ path: "schema", message: `cannot check answers: ${message}` }]);
  }
}

/**
 * A scorer named `json-schema`: 1 when the output's JSON (`outputJson`) validates against
 * `schema` (draft 2020-12 or 7, as far as zod's `z.fromJSONSchema` supports it), else 0 with the
 * first five problems and where they are (`at $.items[0].price: …`). No output, or an output
 * that is not JSON: 0, saying which. It reads no `expected`.
 *
 * @throws `ConfigError` when `schema` is not an object or `z.fromJSONSchema` cannot use it (an
 * unknown type, a dangling `$ref`, `not` …).
 */
export function jsonSchemaValid(schema: { [key: string]: JsonValue }): Scorer {
  const validator = validatorOf(schema);
  return defineScorer({
    name: "json-schema",
    description: "The output's JSON validates against a JSON Schema",
    async score(input) {
      if (input.output === undefined) return noOutput(input);
      if (input.outputJson === undefined) return { value: 0, reason: `the output is not JSON: ${shown(input.output)}` };
      const result = await validator["~standard"].validate(input.outputJson);
      if (result.issues === undefined) return { value: 1 };
      const problems = result.issues.map(
        (issue) =>
          `at ${pathOf(issue.path?.map((segment) => (typeof segment === "object" ? segment.key : segment)))}: ${issue.message}`,
      );
      const listed = problems.slice(0, LISTED);
      if (problems.length > LISTED) listed.push(`and ${problems.length - LISTED} more`);
      return { value: 0, reason: `the output does not match the schema: ${listed.join("; ")}` };
    },
  });
}

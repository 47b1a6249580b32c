/**
 * Checking configuration where it is given: a strict zod schema, and its issues said as a
 * `ConfigError` whose message names each path, the fix, and every unknown key by name. Every
 * entry point that takes configuration (agents, tools, host options, token requests,
 * `sema.config.*`) goes through `checkConfig`, so they all speak alike.
 */
import { z } from "zod";
import { ConfigError, type ConfigProblem, InvalidInputError, sayProblems } from "./errors.ts";
import { nearestName } from "./nearest-name.ts";

/** What a value is, for "got …" in a message (never the value itself: it may be a secret). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return "a function";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Whether `value` is a plain object (of `Object.prototype`) with no enumerable key outside
 * `allowed`: where a hand-written fast check of a strict schema starts (the values are its own
 * to check; anything else goes to the schema).
 */
export function isPlainWithKeys(value: unknown, allowed: ReadonlySet<string>): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * A field whose value its own validator checks after the shape (content parts, a sub-agent, an
 * external tool): anything passes here, and it is typed `T`, so the shape's output still proves
 * equal to its interface (`SchemaMatches`) instead of widening to `unknown`.
 */
export function checkedLater<T>(): z.ZodType<T> {
  return z.custom<T>(() => true);
}

/** A function-valued setting (a model's stream, a tool's execute, a hook), checked as a function. */
export function functionSchema<F>(what: string): z.ZodType<F> {
  return z.custom<F>((value) => typeof value === "function", {
    error: (issue) =>
      issue.input === undefined ? `is missing: ${what}` : `must be a function (${what}), got ${kindOf(issue.input)}`,
  });
}

// Said where a schema has no message of its own: zod's defaults say "Invalid input", not the fix.
const saidPlainly: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return `is missing: set it to ${article(issue.expected)}`;
    return `must be ${article(issue.expected)}, got ${kindOf(issue.input)}`;
  }
  return undefined;
};

function article(expected: string): string {
  if (expected === "array") return "an array";
  if (expected === "object") return "an object";
  if (expected === "int") return "an integer";
  return `a ${expected}`;
}

function dotted(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((part) => part !== "").join(".");
}

/**
 * The keys an object of `schema` takes at `path` (through optional, nullable, default, readonly,
 * lazy and piped wrappers, records, arrays and unions), for "did you mean"; empty when unknown.
 */
export function keysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const inner = (key: string) => def[key] as z.core.$ZodType;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
    case "catch":
      return keysAt(inner("innerType"), path);
    case "pipe":
      return keysAt(inner("in"), path);
    case "lazy":
      return keysAt((def.getter as () => z.core.$ZodType)(), path);
    case "object": {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      if (path.length === 0) return Object.keys(shape);
      const field = shape[String(path[0])];
      return field === undefined ? [] : keysAt(field, path.slice(1));
    }
    case "record":
      return path.length === 0 ? [] : keysAt(inner("valueType"), path.slice(1));
    case "array":
      return path.length === 0 ? [] : keysAt(inner("element"), path.slice(1));
    case "union":
      return [...new Set((def.options as z.core.$ZodType[]).flatMap((option) => keysAt(option, path)))];
    default:
      return [];
  }
}

/**
 * Zod issues as problems, their paths under `prefix` (`agent`, `tools.0` …). With the `schema`
 * they came from, an unknown key close to one it takes is said with it ("did you mean …?").
 */
export function problemsOf(
  issues: readonly z.core.$ZodIssue[],
  prefix = "",
  schema?: z.core.$ZodType,
): ConfigProblem[] {
  return issues.map((issue) => {
    const path = dotted(prefix, issue.path);
    if (issue.code === "unrecognized_keys") {
      const known = schema === undefined ? [] : keysAt(schema, issue.path).filter((key) => !issue.keys.includes(key));
      const names = issue.keys
        .map((key) => {
          const near = nearestName(key, known);
          return `${JSON.stringify(key)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}`;
        })
        .join(", ");
      return {
        path,
        message: `${path === "" ? "" : "has "}unknown ${issue.keys.length === 1 ? "key" : "keys"} ${names}: remove ${issue.keys.length === 1 ? "it" : "them"} or fix the spelling`,
        unknownKeys: [...issue.keys],
      };
    }
    return { path, message: issue.message };
  });
}

/**
 * Parse `value` with `schema` or throw a `ConfigError` for `where` (what was being configured:
 * `runLeg`, `defineTool`, `sema.config.json` …) naming every problem; paths start at `prefix`.
 */
export function checkConfig<S extends z.ZodType>(schema: S, value: unknown, where: string, prefix = ""): z.output<S> {
  const parsed = schema.safeParse(value, { error: saidPlainly });
  if (parsed.success) return parsed.data;
  throw new ConfigError(where, problemsOf(parsed.error.issues, prefix, schema));
}

/**
 * Like `checkConfig` for a call's input rather than configuration (`startTask`'s): the same
 * message, as an `InvalidInputError` (HTTP 400, exit code 2) with the problems in its details.
 */
export function checkInput<S extends z.ZodType>(schema: S, value: unknown, where: string, prefix = ""): z.output<S> {
  const parsed = schema.safeParse(value, { error: saidPlainly });
  if (parsed.success) return parsed.data;
  const problems = problemsOf(parsed.error.issues, prefix, schema);
  throw new InvalidInputError(sayProblems(where, problems), { problems: problems.map((problem) => ({ ...problem })) });
}

/**
 * `defineTool`: checks a tool definition once, strictly (a `ConfigError` names every problem and
 * unknown key), and derives the JSON Schema the model sees from its input schema: zod directly;
 * any other Standard Schema that also implements Standard JSON Schema; a plain JSON Schema object
 * (raw, or wrapped by `jsonSchema(...)`), which also validates the model's input; otherwise pass
 * `jsonSchema` yourself.
 */
import { z } from "zod";
import type { InferOutput, StandardResult, StandardSchemaV1 } from "../../ports/standard-schema.ts";
import type { Tool } from "../../ports/tool.ts";
import { checkConfig, kindOf } from "../../protocol/config-check.ts";
import type { SchemaMatches, ShapeOf } from "../../protocol/config-shape.ts";
import { ConfigError } from "../../protocol/errors.ts";
import type { JsonValue } from "../../protocol/json.ts";
import { isStandardSchema, toolSchema } from "../config/agent-schema.ts";

/** Provider APIs accept tool names of this shape. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A JSON Schema, as a plain JSON object (`{ type: "object", properties: … }`). */
export type JsonSchemaObject = { [key: string]: JsonValue };

/** What a tool's input may be described by: any Standard Schema (zod …) or a plain JSON Schema. */
export type ToolInputSchema = StandardSchemaV1 | JsonSchemaObject;

/** The input `execute` receives for an input schema: the schema's output, or JSON for a plain JSON Schema. */
export type ToolInputOf<S extends ToolInputSchema> = S extends StandardSchemaV1 ? InferOutput<S> : JsonSchemaObject;

/**
 * A JSON Schema as a Standard Schema (what `jsonSchema(...)` returns): it validates values
 * against the schema and carries the schema itself for the model.
 */
export interface JsonSchemaValidator<Input = JsonSchemaObject> extends StandardSchemaV1<unknown, Input> {
  /** The schema as given, without `$schema`: what the model is shown. */
  readonly jsonSchema: JsonSchemaObject;
}

const JSON_SCHEMA_VENDOR = "sema-json-schema";

function isJsonSchemaValidator(value: unknown): value is JsonSchemaValidator<unknown> {
  return isStandardSchema(value) && value["~standard"].vendor === JSON_SCHEMA_VENDOR;
}

function isPlainObject(value: unknown): value is JsonSchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Wrap a plain JSON Schema as a Standard Schema: `defineTool({ inputSchema: jsonSchema({ type:
 * "object", properties: { city: { type: "string" } }, required: ["city"] }), … })`. The model's
 * input is validated against it (zod's JSON Schema reader) before `execute`; `Input` types it.
 * Throws a `ConfigError` for a schema that cannot be read.
 */
export function jsonSchema<Input = JsonSchemaObject>(schema: JsonSchemaObject): JsonSchemaValidator<Input> {
  if (!isPlainObject(schema))
    throw new ConfigError("jsonSchema", [{ path: "", message: `needs a JSON Schema object, got ${kindOf(schema)}` }]);
  const { $schema: _dialect, ...shown } = schema;
  let validator: z.ZodType;
  try {
    validator = z.fromJSONSchema(shown as z.core.JSONSchema.JSONSchema);
  } catch (error) {
    throw new ConfigError("jsonSchema", [
      { path: "", message: `cannot be read as JSON Schema: ${error instanceof Error ? error.message : String(error)}` },
    ]);
  }
  return {
    jsonSchema: shown,
    "~standard": {
      version: 1,
      vendor: JSON_SCHEMA_VENDOR,
      validate: (value) => validator["~standard"].validate(value) as StandardResult<Input>,
    },
  };
}

/**
 * What `defineTool` takes: a {@link Tool} whose `inputSchema` may be a zod / Standard Schema, a
 * `jsonSchema(...)` or a plain JSON Schema object, with `jsonSchema` derived when not given.
 */
export type ToolDefinition<S extends ToolInputSchema, Name extends string = string> = Omit<
  Tool<ToolInputOf<S>, Name>,
  "inputSchema" | "jsonSchema"
> & {
  /** A zod / Standard Schema, a `jsonSchema(...)`, or a plain JSON Schema object. */
  inputSchema: S;
  /** The JSON Schema shown to the model, when it cannot be derived from `inputSchema`. */
  jsonSchema?: JsonSchemaObject;
};

const definitionShape = {
  ...toolSchema.shape,
  name: z.string().regex(TOOL_NAME, { error: `must match ${TOOL_NAME} (what provider APIs accept)` }),
  inputSchema: z.custom<ToolInputSchema>((value) => isStandardSchema(value) || isPlainObject(value), {
    error: (issue) =>
      issue.input === undefined
        ? "is missing: pass a zod schema (z.object({ … })), another Standard Schema, or a JSON Schema object"
        : `must be a zod / Standard Schema or a JSON Schema object, got ${kindOf(issue.input)}`,
  }),
  jsonSchema: z
    .custom<JsonSchemaObject>(isPlainObject, { error: "must be the JSON Schema object shown to the model" })
    .optional(),
} satisfies ShapeOf<ToolDefinition<ToolInputSchema>>;
// Either a Standard Schema or a JSON Schema object: what `defineTool` accepts.
const definitionKeysMatch: SchemaMatches<z.ZodObject<typeof definitionShape>, ToolDefinition<ToolInputSchema>> = true;
void definitionKeysMatch;

const definitionSchema = z.strictObject(definitionShape);

type JsonSchemaCapable = { "~standard": { jsonSchema?: { input?: (options: { target: string }) => unknown } } };

/**
 * The JSON Schema of what `schema` accepts: zod's own conversion, or Standard JSON Schema. The one
 * path for tools' inputs and agents' structured output. A schema with neither is a `ConfigError`
 * of `where` at `path`, saying `instead`.
 */
export function deriveJsonSchema(
  schema: StandardSchemaV1,
  where: string,
  instead = "pass jsonSchema as well",
  path = "",
): JsonSchemaObject {
  let derived: unknown;
  if (isJsonSchemaValidator(schema)) return schema.jsonSchema;
  if (schema instanceof z.ZodType) {
    derived = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
  } else {
    const input = (schema as unknown as JsonSchemaCapable)["~standard"].jsonSchema?.input;
    if (input === undefined) {
      throw new ConfigError(where, [{ path, message: `cannot produce JSON Schema: ${instead}` }]);
    }
    derived = input({ target: "draft-2020-12" });
  }
  const { $schema: _dialect, ...shown } = derived as JsonSchemaObject;
  return shown;
}

/**
 * Define a tool. Throws a `ConfigError` naming each problem: an unknown key, a name providers
 * would refuse, a missing `execute`, an input schema that is neither a Standard Schema nor a JSON
 * Schema object, or one that does not describe an object. The name's literal type is kept
 * (`Tool<Input, "add">`), for hooks typed by the agent's tools.
 */
export function defineTool<S extends ToolInputSchema, const Name extends string = string>(
  definition: ToolDefinition<S, Name>,
): Tool<ToolInputOf<S>, Name> {
  const named =
    typeof definition === "object" && definition !== null && typeof definition.name === "string"
      ? `defineTool ${definition.name}`
      : "defineTool";
  checkConfig(definitionSchema, definition, named);
  const given = definition.inputSchema;
  const inputSchema = isStandardSchema(given) ? given : jsonSchema(given);
  const shown =
    definition.jsonSchema ??
    deriveJsonSchema(
      inputSchema,
      named,
      "pass jsonSchema as well, or give the input schema as JSON Schema",
      "inputSchema",
    );
  if (shown.type !== "object")
    throw new ConfigError(named, [
      {
        path: "inputSchema",
        message: `must describe an object (JSON Schema type "object"), got type ${JSON.stringify(shown.type ?? null)}`,
      },
    ]);
  return { ...definition, inputSchema, jsonSchema: shown } as Tool<ToolInputOf<S>, Name>;
}

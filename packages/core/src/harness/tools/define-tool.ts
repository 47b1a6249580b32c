/**
 * `defineTool`: checks a tool definition once and derives the JSON Schema the model sees from
 * its input schema (zod directly; any other Standard Schema that also implements Standard JSON
 * Schema; otherwise pass `jsonSchema` yourself).
 */
import { z } from "zod";
import type { InferOutput, StandardSchemaV1 } from "../../ports/standard-schema.ts";
import type { Tool } from "../../ports/tool.ts";
import type { JsonValue } from "../../protocol/json.ts";

/** Provider APIs accept tool names of this shape. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export type ToolDefinition<S extends StandardSchemaV1, Name extends string = string> = Omit<
  Tool<InferOutput<S>, Name>,
  "inputSchema" | "jsonSchema"
> & {
  inputSchema: S;
  jsonSchema?: { [key: string]: JsonValue };
};

type JsonSchemaCapable = { "~standard": { jsonSchema?: { input?: (options: { target: string }) => unknown } } };

/**
 * The JSON Schema of what `schema` accepts: zod's own conversion, or Standard JSON Schema. The one
 * path for tools' inputs and agents' structured output. `what` and `instead` word the error.
 */
export function deriveJsonSchema(
  schema: StandardSchemaV1,
  what: string,
  instead = "pass jsonSchema as well",
): { [key: string]: JsonValue } {
  let derived: unknown;
  if (schema instanceof z.ZodType) {
    derived = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" });
  } else {
    const input = (schema as unknown as JsonSchemaCapable)["~standard"].jsonSchema?.input;
    if (input === undefined) {
      throw new TypeError(`${what} cannot produce JSON Schema; ${instead}`);
    }
    derived = input({ target: "draft-2020-12" });
  }
  const { $schema: _dialect, ...jsonSchema } = derived as { [key: string]: JsonValue };
  return jsonSchema;
}

/**
 * Define a tool. Throws a TypeError for a name providers would refuse or a schema with no JSON form.
 * The name's literal type is kept (`Tool<Input, "add">`), for hooks typed by the agent's tools.
 */
export function defineTool<S extends StandardSchemaV1, const Name extends string = string>(
  definition: ToolDefinition<S, Name>,
): Tool<InferOutput<S>, Name> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new TypeError(`tool name ${JSON.stringify(definition.name)} must match ${TOOL_NAME}`);
  }
  const jsonSchema =
    definition.jsonSchema ?? deriveJsonSchema(definition.inputSchema, `tool ${definition.name}: its input schema`);
  if (jsonSchema.type !== "object")
    throw new TypeError(`tool ${definition.name}: the input schema must describe an object`);
  return { ...definition, jsonSchema } as Tool<InferOutput<S>, Name>;
}

/**
 * A Standard Schema that validates a tool's arguments against the JSON Schema its MCP server
 * published, with Ajv (the validator the MCP SDK itself uses). Bad input is answered here, with
 * the failing path, and never reaches the server.
 *
 * The schemas are untrusted: Ajv runs non-strict (unknown keywords are ignored, not fatal), does
 * not register `$id`s (two tools or servers may reuse one), and a schema it cannot compile makes
 * that tool's every call fail validation with the reason rather than failing the connection.
 */
import type { StandardIssue, StandardSchemaV1 } from "@sema-agent/core";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** The arguments of an MCP tool call: a JSON object. */
export type McpArguments = { [key: string]: unknown };

type Dialect = "2020-12" | "2019-09" | "draft-07";
type AjvInstance = Ajv | Ajv2019 | Ajv2020;

const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: true,
  validateSchema: false,
  addUsedSchema: false,
  logger: false,
};

function createAjv(dialect: Dialect): AjvInstance {
  const ajv =
    dialect === "2020-12"
      ? new Ajv2020(AJV_OPTIONS)
      : dialect === "2019-09"
        ? new Ajv2019(AJV_OPTIONS)
        : new Ajv(AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv;
}

/**
 * Which dialects to try, in order. MCP (2025-11-25) makes 2020-12 the default when `$schema` is
 * absent, but many servers still emit draft-07 shapes without saying so: the other dialect is the
 * fallback when the first cannot compile the schema.
 */
function dialectsFor(schema: { [key: string]: unknown }): Dialect[] {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("2020-12")) return ["2020-12", "draft-07"];
  if (declared.includes("2019-09")) return ["2019-09", "draft-07"];
  if (declared === "") return ["2020-12", "draft-07"];
  return ["draft-07", "2020-12"];
}

/** Compiles tool schemas; one per connection, so its Ajv instances die with it. */
export class SchemaCompiler {
  readonly #instances = new Map<Dialect, AjvInstance>();

  #ajv(dialect: Dialect): AjvInstance {
    let ajv = this.#instances.get(dialect);
    if (ajv === undefined) {
      ajv = createAjv(dialect);
      this.#instances.set(dialect, ajv);
    }
    return ajv;
  }

  /** A validate function, or the compile error of the preferred dialect. */
  compile(schema: { [key: string]: unknown }): ValidateFunction | Error {
    let firstError: Error | undefined;
    for (const dialect of dialectsFor(schema)) {
      // A `$schema` naming another dialect (or one Ajv lacks, like draft-04) would stop Ajv
      // from compiling: the dialect is chosen above, so the declaration is dropped here.
      const { $schema: _declared, ...body } = schema;
      try {
        return this.#ajv(dialect).compile(body);
      } catch (error) {
        firstError ??= error instanceof Error ? error : new Error(String(error));
      }
    }
    return firstError ?? new Error("the schema could not be compiled");
  }
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** Ajv's error as a Standard Schema issue; a missing or extra property is named in the path. */
export function toIssue(error: ErrorObject): StandardIssue {
  const path = error.instancePath === "" ? [] : error.instancePath.split("/").slice(1).map(unescapePointer);
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (error.keyword === "required" && typeof params.missingProperty === "string") path.push(params.missingProperty);
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string")
    path.push(params.additionalProperty);
  return { message: error.message ?? `fails the ${error.keyword} rule`, path };
}

function isPlainObject(value: unknown): value is McpArguments {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The Standard Schema for one MCP tool's `inputSchema`. Values pass through unchanged: defaults
 * are the server's to apply, and coercion would change what the model asked for.
 */
export function jsonSchemaInput(
  schema: { [key: string]: unknown },
  compiler: SchemaCompiler,
): StandardSchemaV1<unknown, McpArguments> {
  const compiled = compiler.compile(schema);
  const validate = (value: unknown) => {
    if (compiled instanceof Error) {
      return { issues: [{ message: `the server's input schema cannot be used: ${compiled.message}` }] };
    }
    if (!compiled(value)) {
      const issues = (compiled.errors ?? []).map(toIssue);
      return { issues: issues.length > 0 ? issues : [{ message: "does not match the input schema" }] };
    }
    // MCP sends arguments as an object; a schema that allows anything else cannot change that.
    if (!isPlainObject(value)) return { issues: [{ message: "must be an object" }] };
    return { value };
  };
  return { "~standard": { version: 1, vendor: "sema-mcp", validate } };
}

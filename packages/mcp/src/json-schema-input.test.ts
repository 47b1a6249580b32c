import { describe, expect, it } from "vitest";
import { jsonSchemaInput, SchemaCompiler } from "./json-schema-input.ts";

async function check(schema: { [key: string]: unknown }, value: unknown) {
  return jsonSchemaInput(schema, new SchemaCompiler())["~standard"].validate(value);
}

describe("jsonSchemaInput", () => {
  it("is a Standard Schema v1 from sema-mcp that passes valid input through unchanged", async () => {
    const schema = jsonSchemaInput(
      { type: "object", properties: { n: { type: "number", default: 1 } } },
      new SchemaCompiler(),
    );
    expect(schema["~standard"]).toMatchObject({ version: 1, vendor: "sema-mcp" });
    const input = { n: 2, extra: "kept" };
    const result = await schema["~standard"].validate(input);
    expect(result).toEqual({ value: input });
    // Defaults are the server's to apply.
    expect(await schema["~standard"].validate({})).toEqual({ value: {} });
  });

  it("names the failing path, a missing property, and an extra one", async () => {
    const schema = {
      type: "object",
      properties: {
        user: {
          type: "object",
          properties: { tags: { type: "array", items: { type: "string" } } },
          required: ["name"],
        },
      },
      additionalProperties: false,
    };
    const result = await check(schema, { user: { tags: ["a", 2] }, surprise: true });
    expect(result.issues).toEqual(
      expect.arrayContaining([
        { message: "must be string", path: ["user", "tags", "1"] },
        { message: "must have required property 'name'", path: ["user", "name"] },
        { message: "must NOT have additional properties", path: ["surprise"] },
      ]),
    );
  });

  it("unescapes JSON Pointer segments in paths", async () => {
    const result = await check({ type: "object", properties: { "a/b~c": { type: "string" } } }, { "a/b~c": 1 });
    expect(result.issues).toEqual([{ message: "must be string", path: ["a/b~c"] }]);
  });

  it("checks formats", async () => {
    const result = await check(
      { type: "object", properties: { when: { type: "string", format: "date-time" } } },
      {
        when: "yesterday",
      },
    );
    expect(result.issues).toEqual([{ message: 'must match format "date-time"', path: ["when"] }]);
  });

  it("reads draft-07 and 2020-12 schemas in their own dialect", async () => {
    // Tuple validation is spelt differently in the two.
    const draft7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { pair: { type: "array", items: [{ type: "string" }, { type: "number" }] } },
    };
    expect((await check(draft7, { pair: ["a", "b"] })).issues).toEqual([
      { message: "must be number", path: ["pair", "1"] },
    ]);
    const modern = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } },
    };
    expect((await check(modern, { pair: ["a", "b"] })).issues).toEqual([
      { message: "must be number", path: ["pair", "1"] },
    ]);
    // No $schema: 2020-12, MCP's default.
    const { $schema: _, ...undeclared } = modern;
    expect((await check(undeclared, { pair: ["a", "b"] })).issues).toHaveLength(1);
  });

  it("ignores unknown keywords and lets two tools share an $id", async () => {
    const compiler = new SchemaCompiler();
    const schema = { $id: "https://example.com/args", type: "object", "x-vendor": { anything: true } };
    const first = jsonSchemaInput(schema, compiler);
    const second = jsonSchemaInput({ ...schema, required: ["q"] }, compiler);
    expect(await first["~standard"].validate({})).toEqual({ value: {} });
    expect((await second["~standard"].validate({})).issues).toEqual([
      { message: "must have required property 'q'", path: ["q"] },
    ]);
  });

  it("fails every call with the reason when the server's schema cannot be compiled", async () => {
    const result = await check({ type: "object", properties: { a: { $ref: "#/definitions/missing" } } }, { a: 1 });
    expect(result.issues).toEqual([{ message: expect.stringMatching(/^the server's input schema cannot be used: /) }]);
  });

  it("refuses arguments that are not an object even when the schema would allow them", async () => {
    expect((await check({}, [1])).issues).toEqual([{ message: "must be an object" }]);
  });
});

import { describe, expect, it } from "vitest";
import { jsonSchemaValid } from "./json-schema-valid.ts";
import { answered, recorded, verdict } from "./test-support.ts";

const CITY = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    city: { type: "string" },
    population: { type: "integer", minimum: 0 },
    districts: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
  },
  required: ["city", "population"],
};

describe("jsonSchemaValid", () => {
  it("scores 1 for a recorded answer that validates", async () => {
    const { input } = await recorded([{ text: '{"city":"Lisbon","population":545000}' }]);
    expect(await verdict(jsonSchemaValid(CITY), input)).toEqual({ value: 1 });
  });

  it("scores 0 for one that does not, saying where and what", async () => {
    const output = JSON.stringify({ city: 7, population: -1, districts: [{ name: 3 }] });
    const { value, reason } = await verdict(jsonSchemaValid(CITY), answered(output));
    expect(value).toBe(0);
    expect(reason).toMatch(/^the output does not match the schema: at \$\.city: .*string/);
    expect(reason).toContain("at $.population: ");
    expect(reason).toContain("at $.districts[0].name: ");
  });

  it("scores 0, saying why, without an output or JSON in it", async () => {
    expect(await verdict(jsonSchemaValid(CITY), answered("Lisbon, 545000"))).toEqual({
      value: 0,
      reason: 'the output is not JSON: "Lisbon, 545000"',
    });
    expect((await verdict(jsonSchemaValid(CITY), answered(undefined))).reason).toMatch(/^the task has no output/);
  });

  it("refuses a schema it cannot check with where it is defined", () => {
    expect(() => jsonSchemaValid({ type: "nope" })).toThrow(/jsonSchemaValid: schema cannot check answers: .*nope/);
    expect(() => jsonSchemaValid({ $ref: "#/nowhere" })).toThrow(expect.objectContaining({ code: "ConfigError" }));
    expect(() => jsonSchemaValid("string" as never)).toThrow(/schema must be a JSON Schema object/);
  });
});

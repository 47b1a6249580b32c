// An unknown key is named, with the key meant when one is close, wherever the object sits.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkConfig, keysAt } from "./config-check.ts";

const agent = z.strictObject({ model: z.string(), maxTurns: z.number().optional() });
const config = z.strictObject({
  agents: z.record(z.string(), agent),
  list: z.array(z.strictObject({ name: z.string() })).optional(),
  either: z.union([z.strictObject({ alpha: z.number() }), z.strictObject({ bravo: z.number() })]).optional(),
  lazy: z.lazy(() => z.strictObject({ deep: z.string() })).optional(),
});

describe("keysAt", () => {
  it("reads the keys through records, arrays, unions, lazy and optional wrappers", () => {
    expect(keysAt(config, [])).toEqual(["agents", "list", "either", "lazy"]);
    expect(keysAt(config, ["agents", "main"])).toEqual(["model", "maxTurns"]);
    expect(keysAt(config, ["list", 3])).toEqual(["name"]);
    expect(keysAt(config, ["either"])).toEqual(["alpha", "bravo"]);
    expect(keysAt(config, ["lazy"])).toEqual(["deep"]);
    expect(keysAt(config, ["nowhere"])).toEqual([]);
  });
});

describe("checkConfig: did you mean", () => {
  it("names the key meant beside each close unknown key, and no guess for the others", () => {
    const error = (() => {
      try {
        checkConfig(
          config,
          { agents: { main: { model: "x", maxTurn: 3 } }, list: [{ nmae: "a" }], agentz: {}, colour: 1 },
          "sema.config.json",
        );
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error("accepted");
    })();
    expect(error.message).toContain('agents.main has unknown key "maxTurn" (did you mean "maxTurns"?)');
    expect(error.message).toContain('list.0 has unknown key "nmae" (did you mean "name"?)');
    expect(error.message).toContain(
      'unknown keys "agentz" (did you mean "agents"?), "colour": remove them or fix the spelling',
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitModelId } from "./model-id.ts";

// The GenAI conventions: `gen_ai.request.model` is the model's name, the provider goes in
// `gen_ai.provider.name` (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/).
describe("splitModelId", () => {
  it("splits a Sema model id into the provider and the model's own name", () => {
    expect(splitModelId("openai:gpt-4o")).toEqual({ provider: "openai", name: "gpt-4o" });
    expect(splitModelId("openai-compatible:llama3.2")).toEqual({ provider: "openai-compatible", name: "llama3.2" });
    expect(splitModelId("openrouter/meta-llama/llama-3:free")).toEqual({
      provider: "openrouter",
      name: "meta-llama/llama-3:free",
    });
    expect(splitModelId("gpt-4o")).toEqual({ name: "gpt-4o" });
    expect(splitModelId("openai:")).toEqual({ name: "openai:" });
  });

  it("gives back the id from its parts, for any id (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (id) => {
        const { provider, name } = splitModelId(id);
        expect(provider === undefined ? name : `${provider}${id.charAt(provider.length)}${name}`).toBe(id);
        if (provider !== undefined) expect(provider).not.toMatch(/[:/]/);
        expect(name.length).toBeGreaterThan(0);
      }),
    );
  });
});

import { isSemaError } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { ModelConfigError, resolveModel } from "./resolve-model.ts";

function configError(spec: string, env: Record<string, string | undefined>): ModelConfigError {
  try {
    resolveModel(spec, env);
  } catch (error) {
    if (error instanceof ModelConfigError) return error;
    throw error;
  }
  throw new Error(`resolveModel("${spec}") did not throw`);
}

describe("resolveModel", () => {
  it("resolves each provider to a model whose id is the spec", () => {
    expect(resolveModel("anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" }).id).toBe(
      "anthropic:claude-sonnet-4-5",
    );
    expect(resolveModel("openai:gpt-4.1", { OPENAI_API_KEY: "k" }).id).toBe("openai:gpt-4.1");
    expect(
      resolveModel("openai-compatible:qwen2.5:7b", { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1" }).id,
    ).toBe("openai-compatible:qwen2.5:7b");
  });

  it.each([
    ["anthropic:claude-sonnet-4-5", {}, "ANTHROPIC_API_KEY"],
    ["openai:gpt-4.1", { ANTHROPIC_API_KEY: "k" }, "OPENAI_API_KEY"],
    ["openai-compatible:llama3.2", { OPENAI_COMPATIBLE_API_KEY: "k" }, "OPENAI_COMPATIBLE_BASE_URL"],
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "  " }, "ANTHROPIC_API_KEY"],
  ])("%s without its variable names %s", (spec, env, variable) => {
    const error = configError(spec, env);
    expect(error.message).toBe(`${variable} is not set: set it to use the model ${spec}`);
    expect(error.message).not.toContain("\n");
    expect(error.variable).toBe(variable);
    expect(error.spec).toBe(spec);
    expect(isSemaError(error, "InvalidInput")).toBe(true);
    expect(error.toJSON()).toEqual({ code: "InvalidInput", message: error.message, details: { spec, variable } });
  });

  it("rejects an unknown provider and a spec without a model id, saying what to write", () => {
    expect(configError("gemini:pro", {}).message).toBe(
      'unknown model provider "gemini" in "gemini:pro": use one of anthropic, openai, openai-compatible',
    );
    expect(configError("anthropic", {}).message).toBe(
      'model spec "anthropic" has no model id: write provider:model-id (providers: anthropic, openai, openai-compatible)',
    );
    expect(configError("openai:", {}).variable).toBeUndefined();
  });

  it("says what was meant: the provider/model slash form, a provider off by a letter", () => {
    expect(configError("anthropic/claude-sonnet-4-5", {}).message).toBe(
      'model spec "anthropic/claude-sonnet-4-5" has no model id: write provider:model-id (providers: anthropic, openai, openai-compatible); did you mean "anthropic:claude-sonnet-4-5"?',
    );
    expect(configError("openai-compatible/meta/llama-3", {}).message).toMatch(
      /; did you mean "openai-compatible:meta\/llama-3"\?$/,
    );
    expect(configError("antropic:claude-sonnet-4-5", {}).message).toBe(
      'unknown model provider "antropic" in "antropic:claude-sonnet-4-5": use one of anthropic, openai, openai-compatible; did you mean "anthropic:claude-sonnet-4-5"?',
    );
    expect(configError("opnai/gpt-5", {}).message).toMatch(/; did you mean "openai:gpt-5"\?$/);
    // Nothing close: no guess.
    expect(configError("gemini/pro", {}).message).not.toContain("did you mean");
    expect(configError("gemini:pro", {}).message).not.toContain("did you mean");
  });

  it("reads nothing from process.env", () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "from-process-env";
    try {
      expect(configError("anthropic:claude-sonnet-4-5", {}).variable).toBe("ANTHROPIC_API_KEY");
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

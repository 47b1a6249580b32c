/**
 * Issue 29, finding 11c, where a CLI host's configuration is given: a `sema.config.*` whose
 * dollar quota would count an unpriced model's calls as free is a `ConfigError` (exit 2 for
 * `sema serve` and `sema worker`) naming the model; the vendors' list prices (`DEFAULT_PRICES`)
 * and the config's own prices count.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSemaError } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { loadAgents } from "./agent-config.ts";

const ENV = { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1", ANTHROPIC_API_KEY: "sk-test" };
const noModel = () => {
  throw new Error("the default agent was not expected");
};

function configDir(config: unknown): string {
  const cwd = mkdtempSync(join(tmpdir(), "sema-quota-prices-"));
  writeFileSync(join(cwd, "sema.config.json"), JSON.stringify(config));
  return cwd;
}

describe("sema.config.json: dollar quotas and prices", () => {
  it("refuses a dollar quota over a model with no price, naming it", async () => {
    const cwd = configDir({
      agents: { local: { model: "openai-compatible:llama3.2" } },
      quotas: { default: { costUsdPerDay: 2 } },
    });
    const error = await loadAgents(cwd, ENV, noModel).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isSemaError(error) && error.code).toBe("ConfigError");
    expect(String((error as Error).message)).toContain(
      'sema.config.json: quotas.prices has no price for the model "openai-compatible:llama3.2" (agents.local.model)',
    );
  });

  it("accepts it with the config's price, and a listed vendor model without one", async () => {
    const priced = configDir({
      agents: { local: { model: "openai-compatible:llama3.2" } },
      quotas: { default: { costUsdPerDay: 2 }, prices: { llama3: { input: 0, output: 0 } } },
    });
    await expect(loadAgents(priced, ENV, noModel)).resolves.toMatchObject({ defaultAgent: "local" });
    const listed = configDir({
      agents: { writer: { model: "anthropic:claude-sonnet-4-5" } },
      quotas: { default: { costUsdPerMonth: 20 } },
    });
    await expect(loadAgents(listed, ENV, noModel)).resolves.toMatchObject({ defaultAgent: "writer" });
  });
});

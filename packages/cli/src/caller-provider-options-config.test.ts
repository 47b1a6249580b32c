/**
 * Issue 29, finding 3, in `sema.config.json`: an agent's `callerProviderOptions` is read (so a
 * JSON-configured `sema serve` can allow a key), and a reserved key in it is a `ConfigError`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSemaError } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { loadAgents } from "./agent-config.ts";

const ENV = { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1" };
const noModel = () => {
  throw new Error("the default agent was not expected");
};

function configDir(callerProviderOptions: unknown): string {
  const cwd = mkdtempSync(join(tmpdir(), "sema-caller-options-"));
  writeFileSync(
    join(cwd, "sema.config.json"),
    JSON.stringify({ agents: { local: { model: "openai-compatible:llama3.2", callerProviderOptions } } }),
  );
  return cwd;
}

describe("sema.config.json: callerProviderOptions", () => {
  it("is given to the agent", async () => {
    const set = await loadAgents(configDir({ "openai-compatible": ["reasoning_effort"] }), ENV, noModel);
    expect(set.agents.local?.callerProviderOptions).toEqual({ "openai-compatible": ["reasoning_effort"] });
  });

  it("refuses a reserved key, naming it", async () => {
    const error = await loadAgents(configDir({ "openai-compatible": ["max_tokens"] }), ENV, noModel).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isSemaError(error) && error.code).toBe("ConfigError");
    expect(String((error as Error).message)).toContain('"max_tokens" is reserved');
  });
});

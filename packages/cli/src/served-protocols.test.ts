/**
 * Which protocols `sema serve` mounts: `--protocols` parsed strictly, `protocols` of a config
 * checked with the config, and the default (neither) all of them.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSemaError } from "@sema-agent/core";
import { describe, expect, it } from "vitest";
import { loadAgents } from "./agent-config.ts";
import { PROTOCOL_NAMES, parseProtocolsFlag } from "./served-protocols.ts";

const noModel = () => {
  throw new Error("the default agent was not expected");
};

function configIn(config: object): string {
  const cwd = mkdtempSync(join(tmpdir(), "sema-protocols-"));
  const script = join(cwd, "turns.json");
  writeFileSync(script, JSON.stringify({ turns: [{ text: "hi" }] }));
  writeFileSync(
    join(cwd, "sema.config.json"),
    JSON.stringify({ agents: { a: { model: `script:${script}` } }, ...config }),
  );
  return cwd;
}

describe("the protocols sema serve mounts", () => {
  it("--protocols takes a list of known names, each once, or none", () => {
    expect(parseProtocolsFlag("a2a,mcp")).toEqual(["a2a", "mcp"]);
    expect(parseProtocolsFlag(" console , ui-stream ")).toEqual(["console", "ui-stream"]);
    expect(parseProtocolsFlag("none")).toEqual([]);
    expect(parseProtocolsFlag(PROTOCOL_NAMES.join(","))).toEqual([...PROTOCOL_NAMES]);
    for (const bad of ["", "a2a,a2a", "A2A", "grpc", "a2a,", "none,a2a"])
      expect(() => parseProtocolsFlag(bad), bad).toThrow(/--protocols must be/);
  });

  it("protocols of sema.config.json: read when given, absent when not, refused when wrong", async () => {
    expect((await loadAgents(configIn({ protocols: ["a2a", "console"] }), {}, noModel)).protocols).toEqual([
      "a2a",
      "console",
    ]);
    expect((await loadAgents(configIn({ protocols: [] }), {}, noModel)).protocols).toEqual([]);
    expect((await loadAgents(configIn({}), {}, noModel)).protocols).toBeUndefined();
    const refused = await loadAgents(configIn({ protocols: ["a2a", "soap"] }), {}, noModel).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSemaError(refused, "ConfigError")).toBe(true);
    expect(String(refused)).toContain("protocols");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS, USAGE } from "../packages/cli/src/main.ts";
import { CLI_REFERENCE_PATH, parseUsage, renderCliReference } from "./cli-reference.ts";

describe("docs/reference/cli.md", () => {
  it("is what the CLI's usage text renders (run npm run docs:cli after changing USAGE)", () => {
    expect(readFileSync(CLI_REFERENCE_PATH, "utf8")).toBe(renderCliReference(USAGE));
  });

  it("has a section for every command the CLI runs", () => {
    const names = parseUsage(USAGE).commands.map((command) => command.name);
    expect(names).toEqual(Object.keys(COMMANDS));
    // Every usage line is on the page, so an option added to USAGE appears there.
    const page = readFileSync(CLI_REFERENCE_PATH, "utf8");
    for (const line of USAGE.split("\n")
      .slice(1)
      .filter((l) => l !== "Commands:"))
      expect(page).toContain(line.replace(/^ {2}/, ""));
  });
});

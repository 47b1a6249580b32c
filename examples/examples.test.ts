// examples/: every example runs as a user runs it (its own Node process, the packages resolved by
// name through node_modules), exits 0 (or the code expected.ts gives it: evals-ci fails its gate on
// purpose), and prints what it shows step by step, then the line that says what it showed. Each
// example asserts its own result and exits non-zero otherwise, so a passing run means it did what
// it says.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

import { EXPECTED_LINES, stdoutOf } from "./expected.ts";

const run = promisify(execFile);
const examples = fileURLToPath(new URL("./", import.meta.url));
const repo = fileURLToPath(new URL("../", import.meta.url));

// The source condition runs the workspace packages from their TypeScript. openai-compatible runs on
// the builds instead: eventsource-parser (under the AI SDK) publishes a "source" condition too,
// and Node does not strip types under node_modules.
const source = ["--conditions=source", "--no-warnings"];
const flagsOf = (name: string) => (name === "openai-compatible" ? ["--no-warnings"] : source);

const folders = readdirSync(examples).filter((name) => statSync(`${examples}${name}`).isDirectory());
/** hello-agent is the README's ten lines: its one line of output is the answer. */
const ONE_LINE = new Set(["hello-agent"]);

describe("examples", () => {
  it("every folder is listed here, has a short README and depends on the packages by name", () => {
    expect(folders.sort()).toEqual(Object.keys(EXPECTED_LINES).sort());
    const readme = readFileSync(`${repo}README.md`, "utf8");
    for (const name of folders) {
      const lines = readFileSync(`${examples}${name}/README.md`, "utf8").trimEnd().split("\n").length;
      expect(lines, name).toBeGreaterThanOrEqual(3);
      expect(lines, name).toBeLessThanOrEqual(6);
      const manifest = JSON.parse(readFileSync(`${examples}${name}/package.json`, "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(Object.keys(manifest.dependencies), name).toContain("@sema-agent/core");
      expect(readme, name).toContain(`(examples/${name}/)`);
    }
  });

  for (const [name, line] of Object.entries(EXPECTED_LINES)) {
    it(`${name} runs and prints what it showed`, async () => {
      const stdout = await stdoutOf(
        name,
        run(process.execPath, [...flagsOf(name), "index.ts"], { cwd: `${examples}${name}`, timeout: 30_000 }),
      );
      expect(stdout).toMatch(line);
      // What it shows, step by step, before the line that sums it up (a skip says only why).
      if (!ONE_LINE.has(name) && !/^skipped: /m.test(stdout))
        expect(stdout.trim().split("\n").length, stdout).toBeGreaterThanOrEqual(3);
    });
  }
});

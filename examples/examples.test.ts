// examples/: every example runs as a user runs it (its own Node process, the packages resolved by
// name through node_modules), exits 0 and prints the line that says what it showed. Each example
// asserts its own result and exits non-zero otherwise, so a passing run means it did what it says.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const examples = fileURLToPath(new URL("./", import.meta.url));
const repo = fileURLToPath(new URL("../", import.meta.url));

// The source condition runs the workspace packages from their TypeScript. openai-compatible runs on
// the builds instead: eventsource-parser (under the AI SDK) publishes a "source" condition too,
// and Node does not strip types under node_modules.
const source = ["--conditions=source", "--no-warnings"];
const postgres =
  process.env.SEMA_REQUIRE_POSTGRES === "1"
    ? /^6 tasks on one PostgreSQL database/m
    : /^(6 tasks on one PostgreSQL|skipped: no PostgreSQL)/m;
// The useChat page runs in Chromium where there is one (CI requires it, as the console's browser test does).
const browser =
  process.env.SEMA_REQUIRE_BROWSER === "1"
    ? /^useChat in Chromium: steered mid-answer, reloaded, resumed from the log, approved write_note: All done\.$/m
    : /^(useChat in Chromium: steered mid-answer, reloaded, resumed from the log, approved write_note: All done\.|skipped: no Chromium)/m;
const expected: Record<string, { flags: string[]; line: RegExp }> = {
  "hello-agent": { flags: source, line: /^2 \+ 3 = 5$/m },
  streaming: { flags: source, line: /^streamed \d+ events; textStream: Streams arrive piece by piece\.$/m },
  "steer-cross-process": { flags: source, line: /^steered mid-leg from another process: It is 25 °C in Lisbon\.$/m },
  "approval-cross-process": { flags: source, line: /^approved in another process, deployed here: Deployed\.$/m },
  hooks: { flags: source, line: /^denied: .*not allowed here \| final: .*Summary: nothing was deleted\.$/m },
  delegation: {
    flags: source,
    line: /^child \S+ \(budget \{"maxTokens":1600\}\): The researcher says: Mount Everest\.$/m,
  },
  "serve-config": { flags: source, line: /^served by sema serve, followed over SSE \(\d+ events\): HELLO!$/m },
  "openai-compatible": {
    flags: ["--no-warnings"],
    line: /^openai-compatible \(2 streamed requests, .*\): 2 \+ 3 = 5$/m,
  },
  "postgres-nodes": { flags: source, line: postgres },
  "react-chat": { flags: source, line: browser },
};

const folders = readdirSync(examples).filter((name) => statSync(`${examples}${name}`).isDirectory());

describe("examples", () => {
  it("every folder is listed here, has a short README and depends on the packages by name", () => {
    expect(folders.sort()).toEqual(Object.keys(expected).sort());
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

  for (const [name, { flags, line }] of Object.entries(expected)) {
    it(`${name} runs and prints what it showed`, async () => {
      const { stdout } = await run(process.execPath, [...flags, "index.ts"], {
        cwd: `${examples}${name}`,
        timeout: 30_000,
      });
      expect(stdout).toMatch(line);
    });
  }
});

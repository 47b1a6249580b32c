// examples/hello-agent: the hello agent with one tool, run as a user would (its own Node process,
// resolving @sema-agent/core by name), typechecked, and held to the ten lines the README promises.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const example = fileURLToPath(new URL("../../../../examples/hello-agent/", import.meta.url));
const repo = fileURLToPath(new URL("../../../../", import.meta.url));

describe("examples/hello-agent", () => {
  it("runs offline and prints its answer", async () => {
    const { stdout } = await run(process.execPath, ["--conditions=source", "--no-warnings", "index.ts"], {
      cwd: example,
    });
    expect(stdout).toBe("2 + 3 = 5\n");
  });

  it("typechecks", async () => {
    await run(`${repo}node_modules/.bin/tsc`, ["-p", `${example}tsconfig.json`, "--noEmit"], { cwd: example });
  });

  it("is at most ten lines, is the README's hello agent, and depends on @sema-agent/core by name", () => {
    const code = readFileSync(`${example}index.ts`, "utf8");
    // Every line counted, the blank one after the imports included.
    expect(code.trimEnd().split("\n").length).toBeLessThanOrEqual(10);
    expect(readFileSync(`${repo}README.md`, "utf8")).toContain(`\`\`\`ts\n${code}\`\`\``);
    const manifest = JSON.parse(readFileSync(`${example}package.json`, "utf8")) as { dependencies: object };
    expect(manifest.dependencies).toHaveProperty(["@sema-agent/core"]);
  });
});

// What npm says about Node versions while installing this repository, as README.md and
// CONTRIBUTING.md describe it: the install runs on Node.js >= 20 with npm >= 11, while the root's
// `engines`, like the packages', says what the code needs to run (Node.js >= 22.13); so on Node 20
// npm warns EBADENGINE for the repository and the packages that need a newer Node, and on Node 22
// of none.
// `npm install --dry-run --offline` resolves the same tree as `npm ci` and writes nothing.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { node22, repo } from "./pack-workspace.ts";

const run = promisify(execFile);
const node20 = "/usr/bin/node";
const systemNodeIsOld =
  existsSync(node20) && Number(/^v(\d+)/.exec((await run(node20, ["--version"])).stdout)?.[1]) < 22;

/** The packages npm warns about (EBADENGINE), installing with `node` first on the PATH. */
async function engineWarnings(node: string): Promise<string[]> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(repo));
  env.PATH = [dirname(node), ...path].join(delimiter);
  const { stderr } = await run(
    "npm",
    ["install", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"],
    { cwd: repo, env, timeout: 120_000 },
  );
  return [...stderr.matchAll(/EBADENGINE {3}package: (.+),$/gm)].map((match) => match[1] ?? "");
}

describe("installing the repository", () => {
  it("README.md and CONTRIBUTING.md say what the root's engines say", () => {
    const root = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { engines: Record<string, string> };
    expect(root.engines).toEqual({ node: ">=22.13" });
    for (const file of ["README.md", "CONTRIBUTING.md", "docs/guide/getting-started.md"])
      expect(readFileSync(join(repo, file), "utf8").replace(/\s+/g, " "), file).toContain(
        "Node.js ≥ 20 and npm ≥ 11 to run the install",
      );
  });

  it.runIf(systemNodeIsOld)(
    "on Node 20: npm warns of the packages that need a newer Node to run, and nothing fails",
    async () => {
      const warned = await engineWarnings(node20);
      expect(warned.length).toBeGreaterThan(0);
      // The repository itself: npm names the root, which has no version, `undefined`.
      expect(warned).toContain("undefined");
      expect(warned).toContain("'@sema-agent/core@0.1.0'");
    },
    120_000,
  );

  it("on Node 22: npm warns of nothing", async () => {
    if (!existsSync(node22)) throw new Error(`${node22} is missing: npm ci installs it (tools/node22)`);
    expect(await engineWarnings(node22)).toEqual([]);
  }, 120_000);
});

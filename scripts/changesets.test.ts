// Releasing with changesets (CONTRIBUTING.md, "Releasing"), offline, on a copy of the repository's
// manifests, changelogs and changesets config in a fresh git repository: `changeset status` passes
// on a clean tree, and one changeset for one package releases every published package at one
// version (the "fixed" group), writes the changelogs in the format they already have, leaves the
// private workspaces unversioned and produces files Biome accepts.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => join(repo, "node_modules", ".bin", name);
const PUBLISHED = [
  "core",
  "sqlite",
  "postgres",
  "ai-sdk",
  "mcp",
  "a2a",
  "otel",
  "evals",
  "worker",
  "server",
  "cli",
  "create-sema",
] as const;
const root = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { workspaces: string[] };
const version = (dir: string): string =>
  (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
const nextPatch = (v: string): string => v.replace(/\d+$/, (patch) => String(Number(patch) + 1));

const copy = mkdtempSync(join(tmpdir(), "sema-changesets-"));
const git = (...args: string[]) =>
  run("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], { cwd: copy });
// Offline: changesets reads git and the files only; npm is told not to reach the registry anyway.
const changeset = (...args: string[]) =>
  run(bin("changeset"), args, { cwd: copy, env: { ...process.env, npm_config_offline: "true" } });

beforeAll(async () => {
  for (const file of ["package.json", "package-lock.json", "biome.json", ".changeset/config.json"])
    cpSync(join(repo, file), join(copy, file));
  for (const workspace of root.workspaces) {
    mkdirSync(join(copy, workspace), { recursive: true });
    for (const file of ["package.json", "CHANGELOG.md"])
      if (existsSync(join(repo, workspace, file))) cpSync(join(repo, workspace, file), join(copy, workspace, file));
  }
  symlinkSync(join(repo, "node_modules"), join(copy, "node_modules"), "dir");
  writeFileSync(join(copy, ".gitignore"), "node_modules\n");
  await git("init", "-q", "-b", "main");
  await git("add", "-A");
  await git("commit", "-q", "-m", "base");
}, 60_000);

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe("changesets", () => {
  it("status passes on a clean tree with nothing to release", async () => {
    const { stdout, stderr } = await changeset("status");
    expect(`${stdout}${stderr}`).not.toMatch(/issues in your config|error/i);
  });

  it("one changeset releases every published package at one version, changelogs in their format", async () => {
    const before = version(join(copy, "packages", "core"));
    const next = nextPatch(before);
    writeFileSync(
      join(copy, ".changeset", "quiet-sqlite.md"),
      `---\n"@sema-agent/sqlite": patch\n---\n\nNode 22 prints no SQLite ExperimentalWarning.\n`,
    );
    // Biome's Markdown formatter would read the front matter as a heading: it must skip changesets.
    await run(bin("biome"), ["check", "."], { cwd: copy });
    const { stdout, stderr } = await changeset("status");
    expect(`${stdout}${stderr}`).not.toMatch(/issues in your config|error/i);
    for (const name of PUBLISHED) expect(stdout).toContain(name === "create-sema" ? name : `@sema-agent/${name}`);
    expect(stdout).not.toContain("@sema-agent/bench");

    await changeset("version");
    for (const name of PUBLISHED) expect(version(join(copy, "packages", name)), name).toBe(next);
    expect(version(join(copy, "bench"))).toBe(version(join(repo, "bench")));
    const cli = JSON.parse(readFileSync(join(copy, "packages", "cli", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(cli.dependencies["@sema-agent/core"]).toBe(next);
    const changelog = readFileSync(join(copy, "packages", "sqlite", "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(
      new RegExp(
        `^# @sema-agent/sqlite\\n\\n## ${next}\\n\\n### Patch Changes\\n\\n- Node 22 prints no SQLite ExperimentalWarning\\.\\n`,
      ),
    );
    expect(changelog).toContain(`\n## ${before}\n\n### Minor Changes\n\n- Initial release.`);
    expect(existsSync(join(copy, ".changeset", "quiet-sqlite.md"))).toBe(false);
    // biome exits non-zero on anything it would reformat.
    await run(bin("biome"), ["check", "."], { cwd: copy });
  }, 60_000);
});

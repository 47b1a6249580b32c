import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appFiles, NODE_RANGE, ownVersion, THIRD_PARTY } from "./app-files.ts";
import { main } from "./main.ts";

const repo = join(import.meta.dirname, "..", "..", "..");
const manifestOf = (path: string) =>
  JSON.parse(readFileSync(path, "utf8")) as {
    name: string;
    version: string;
    engines?: Record<string, string>;
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

/** create-sema run in a fresh temporary folder: its exit code, what it printed, and the folder. */
function create(...argv: string[]) {
  const cwd = mkdtempSync(join(tmpdir(), "create-sema-"));
  let stdout = "";
  let stderr = "";
  const io = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: (t: string) => (stderr += t) }, cwd };
  return { cwd, io, run: () => ({ code: main(argv, io), stdout: () => stdout, stderr: () => stderr }) };
}

describe("create-sema", () => {
  it("writes the app into a new folder and prints the next steps", () => {
    const { cwd, run } = create("my-agent");
    const { code, stdout, stderr } = run();
    expect(stderr()).toBe("");
    expect(code).toBe(0);
    const app = join(cwd, "my-agent");
    expect(readdirSync(app).sort()).toEqual(
      [
        ".gitignore",
        "README.md",
        "agent.test.ts",
        "index.ts",
        "package.json",
        "sema.config.ts",
        "tsconfig.json",
      ].sort(),
    );
    expect(stdout()).toContain("  cd my-agent\n  npm install\n  npm test");
    expect(stdout()).toContain("npm run serve");
    expect(readFileSync(join(app, "README.md"), "utf8")).toMatch(/^# my-agent\n/);
    expect(readFileSync(join(app, ".gitignore"), "utf8")).toContain(".sema/");
    const tsconfig = JSON.parse(readFileSync(join(app, "tsconfig.json"), "utf8")) as {
      compilerOptions: { types: string[] };
    };
    expect(tsconfig.compilerOptions.types).toEqual(["node"]);
  });

  it("pins the Sema packages at its own version, @sema-agent/cli as a dev dependency", () => {
    const { cwd, run } = create("pinned");
    expect(run().code).toBe(0);
    const manifest = manifestOf(join(cwd, "pinned", "package.json"));
    const version = ownVersion();
    expect(version).toBe(manifestOf(join(repo, "packages", "core", "package.json")).version);
    expect(manifest.name).toBe("pinned");
    expect(manifest.engines).toEqual({ node: NODE_RANGE });
    expect(manifest.scripts).toMatchObject({ start: "node index.ts", test: "node --test", serve: "sema serve" });
    expect(manifest.dependencies).toEqual({
      "@sema-agent/ai-sdk": version,
      "@sema-agent/core": version,
      zod: THIRD_PARTY.zod,
    });
    expect(manifest.devDependencies).toMatchObject({ "@sema-agent/cli": version });
  });

  it("asks for the third-party packages at the ranges this repository is tested with", () => {
    const root = manifestOf(join(repo, "package.json"));
    expect(THIRD_PARTY.zod).toBe(manifestOf(join(repo, "packages", "core", "package.json")).dependencies?.zod);
    expect(THIRD_PARTY["@types/node"]).toBe(root.devDependencies?.["@types/node"]);
    expect(THIRD_PARTY.typescript).toBe(`^${root.devDependencies?.typescript}`);
  });

  it("writes the template's files as they are, the README named", () => {
    const files = new Map(appFiles("named-app", "9.9.9").map((file) => [file.path, file.text]));
    const template = join(import.meta.dirname, "..", "template");
    for (const entry of readdirSync(template)) {
      const path = entry === "gitignore" ? ".gitignore" : entry;
      const text = readFileSync(join(template, entry), "utf8");
      expect(files.get(path), entry).toBe(entry === "README.md" ? text.replaceAll("{{name}}", "named-app") : text);
    }
    expect(files.get("README.md")).not.toContain("{{name}}");
  });

  it('fills an empty folder, "." for the current one, named after it', () => {
    const { cwd, io } = create();
    const folder = join(cwd, "here-app");
    mkdirSync(folder);
    expect(main(["."], { ...io, cwd: folder })).toBe(0);
    expect(manifestOf(join(folder, "package.json")).name).toBe("here-app");
  });

  it("refuses a folder that is not empty, and writes nothing", () => {
    const { cwd, run } = create("busy");
    mkdirSync(join(cwd, "busy"));
    writeFileSync(join(cwd, "busy", "notes.txt"), "mine");
    const { code, stderr } = run();
    expect(code).toBe(2);
    expect(stderr()).toMatch(/busy is not empty: choose a new folder, or empty this one/);
    expect(readdirSync(join(cwd, "busy"))).toEqual(["notes.txt"]);
  });

  it("refuses a file as the folder", () => {
    const { cwd, run } = create("afile");
    writeFileSync(join(cwd, "afile"), "");
    const { code, stderr } = run();
    expect(code).toBe(2);
    expect(stderr()).toMatch(/afile is a file, not a folder/);
  });

  it("refuses a name npm would refuse, and writes nothing", () => {
    for (const name of ["My-Agent", "my agent", ".hidden", "node_modules"]) {
      const { cwd, run } = create(name);
      const { code, stderr } = run();
      expect(code, name).toBe(2);
      expect(stderr(), name).toMatch(
        new RegExp(`^create-sema: "${name.replace(".", "\\.")}" cannot name the app: it `),
      );
      expect(existsSync(join(cwd, name)), name).toBe(false);
    }
  });

  it("says how to call it without a folder or with two, and prints --help", () => {
    const none = create().run();
    expect(none.code).toBe(2);
    expect(none.stderr()).toMatch(/^create-sema: name the folder\nUsage: npm create sema@latest <folder>/);
    const two = create("a", "b").run();
    expect(two.code).toBe(2);
    expect(two.stderr()).toMatch(/^create-sema: one folder only/);
    const unknown = create("--force", "x").run();
    expect(unknown.code).toBe(2);
    expect(unknown.stderr()).toMatch(/^create-sema: Unknown option '--force'/);
    const help = create("--help").run();
    expect(help.code).toBe(0);
    expect(help.stdout()).toMatch(/^Usage: npm create sema@latest <folder>/);
  });
});

// The packages as a user gets them: each is packed the way `npm publish` packs it (through the
// same prepack step, on a copy so the workspace's own manifests are never touched while other
// tests resolve them), linted by publint and "Are the Types Wrong?", installed as tarballs into a
// consumer that is not a workspace, type-checked there with `skipLibCheck: false`, and run with
// plain `node` (no `--conditions`), every example of examples/ included. Third-party dependencies come from
// the repository's own node_modules (symlinked), so nothing is downloaded.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPECTED_LINES, stdoutOf } from "../examples/expected.ts";
import { type Manifest, node22, PACKAGES, packWorkspace, repo } from "./pack-workspace.ts";

const run = promisify(execFile);
const bin = (name: string) => join(repo, "node_modules", ".bin", name);
/** Packages with an importable entry (the CLI and create-sema are commands only). */
const LIBRARIES = PACKAGES.filter((name) => name !== "cli" && name !== "create-sema");

const work = mkdtempSync(join(tmpdir(), "sema-pack-"));
const tarballs = new Map<string, string>();
const manifests = new Map<string, Manifest>();

/** Pack `packages/<name>` from a copy: the real prepack step rewrites the copy's manifest. */
async function pack(name: string): Promise<void> {
  const packed = await packWorkspace(name, work);
  tarballs.set(name, packed.tarball);
  manifests.set(name, packed.manifest);
}

/** The consumer: our tarballs extracted as npm installs them, other dependencies linked. */
async function installConsumer(): Promise<string> {
  const consumer = join(work, "consumer");
  const modules = join(consumer, "node_modules");
  mkdirSync(join(modules, "@sema-agent"), { recursive: true });
  const thirdParty = new Set<string>(["@types/node", "vitest"]);
  for (const [name, tarball] of tarballs) {
    const target = join(modules, manifests.get(name)?.name ?? name);
    mkdirSync(target, { recursive: true });
    await run("tar", ["xzf", tarball, "-C", target, "--strip-components=1"]);
    const manifest = manifests.get(name);
    for (const dep of Object.keys({ ...manifest?.dependencies, ...manifest?.peerDependencies }))
      if (!dep.startsWith("@sema-agent/")) thirdParty.add(dep);
  }
  // What the examples use besides our packages (React, Vite and the browser driver of react-chat).
  for (const name of Object.keys(EXPECTED_LINES)) {
    const example = JSON.parse(readFileSync(join(repo, "examples", name, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(example.dependencies ?? {})) if (!dep.startsWith("@sema-agent/")) thirdParty.add(dep);
  }
  for (const dep of thirdParty) {
    const link = join(modules, dep);
    mkdirSync(dirname(link), { recursive: true });
    if (!existsSync(link)) symlinkSync(join(repo, "node_modules", dep), link, "dir");
  }
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  return consumer;
}

let consumer = "";

beforeAll(async () => {
  for (const name of PACKAGES) await pack(name);
  consumer = await installConsumer();
}, 240_000);

// Thousands of files (the staged copies, the consumer): on a busy machine more than a hook's default 10 s.
afterAll(() => rm(work, { recursive: true, force: true }), 120_000);

describe("the published packages", () => {
  it("carry no export condition that points outside the tarball, and no file outside dist/bin/console/template", async () => {
    for (const name of PACKAGES) {
      const manifest = manifests.get(name);
      expect(JSON.stringify(manifest?.exports ?? {})).not.toContain('"source"');
      const { stdout } = await run("tar", ["tzf", tarballs.get(name) ?? ""]);
      const files = stdout.trim().split("\n");
      expect(files).toContain("package/LICENSE");
      expect(files).toContain("package/README.md");
      for (const file of files)
        expect(file).toMatch(/^package\/(dist\/|bin\/|console\/|template\/|LICENSE$|README\.md$|package\.json$)/);
      expect(files.some((file) => /\.test\.(js|d\.ts)$/.test(file))).toBe(false);
    }
  });

  it("ship the studio as it is served: the page, its one bundled script, the stylesheet and the icon", async () => {
    const { stdout } = await run("tar", ["tzf", tarballs.get("server") ?? ""]);
    const files = stdout.trim().split("\n");
    expect(files.filter((file) => file.startsWith("package/console/")).sort()).toEqual([
      "package/console/console.css",
      "package/console/dist/studio.js",
      "package/console/favicon.svg",
      "package/console/index.html",
    ]);
  });

  it("pass npm publish --dry-run without npm having to correct their manifests", async () => {
    for (const name of PACKAGES) {
      const { stderr } = await run("npm", ["publish", "--dry-run", "--ignore-scripts"], {
        cwd: join(work, "stage", name),
      });
      expect(stderr, name).not.toMatch(/auto-corrected|errors corrected/);
    }
  }, 120_000);

  it("pass publint --strict", async () => {
    for (const name of PACKAGES) {
      const { stdout } = await run(bin("publint"), ["run", "--strict", tarballs.get(name) ?? ""]);
      expect(stdout, name).toContain("All good!");
    }
  }, 120_000);

  it("pass Are the Types Wrong? on its ESM-only profile (Sema ships ESM only)", async () => {
    for (const name of LIBRARIES) {
      // attw exits non-zero on any problem the profile does not ignore.
      await run(bin("attw"), ["--profile", "esm-only", "--format", "ascii", tarballs.get(name) ?? ""]);
    }
  }, 120_000);

  it("type-check in a strict consumer with skipLibCheck off, importing every public entry point", async () => {
    const entries: string[] = [];
    for (const name of LIBRARIES) {
      const manifest = manifests.get(name);
      for (const key of Object.keys(manifest?.exports ?? {}))
        entries.push(`${manifest?.name}${key === "." ? "" : key.slice(1)}`);
    }
    expect(entries).toContain("@sema-agent/core/testing/conformance");
    writeFileSync(
      join(consumer, "entries.ts"),
      `${entries.map((entry, i) => `import * as e${i} from "${entry}";`).join("\n")}\nexport const all = [${entries.map((_, i) => `e${i}`).join(", ")}];\n`,
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2023",
          skipLibCheck: false,
          noEmit: true,
          types: ["node"],
        },
        files: ["entries.ts"],
      }),
    );
    const result = await run(bin("tsc"), ["-p", consumer]).then(
      () => ({ ok: true, errors: "" }),
      (error: { stdout?: string; message: string }) => ({ ok: false, errors: error.stdout ?? error.message }),
    );
    expect(result).toEqual({ ok: true, errors: "" });
  }, 120_000);

  // The smoke runs on the Node that runs the tests (24) and on Node 22, so `engines: >=22.13` is
  // tested, not just claimed; on both, nothing reaches stderr (no SQLite ExperimentalWarning).
  it.each([
    ["this Node", process.execPath],
    ["Node 22", node22],
  ])(
    "run with plain node (%s): a task on MemoryStore and on a SQLite file, to completion",
    async (_, node) => {
      if (!existsSync(node)) throw new Error(`${node} is missing: npm ci installs it (tools/node22)`);
      writeFileSync(
        join(consumer, "smoke.mjs"),
        // The token store's entry first: it opens the same SQLite file, and must not be what makes
        // Node 22 print the warning the store avoids.
        `import { SqliteTokenStore } from "@sema-agent/server/sqlite-tokens";
import { MemoryStore, runLeg, startTask } from "@sema-agent/core";
import { ScriptedModel } from "@sema-agent/core/testing";
import { SqliteStore } from "@sema-agent/sqlite";
import { join } from "node:path";
const stores = [
  new MemoryStore(),
  new SqliteStore({ path: join(process.argv[2], "smoke.db") }),
  // The writer thread loads its worker module from the installed package.
  new SqliteStore({ path: join(process.argv[2], "smoke-thread.db"), writer: "thread" }),
];
for (const store of stores) {
  const taskId = await startTask(store, { objective: "Say hello" });
  const outcome = await runLeg({ store, agent: { model: new ScriptedModel([{ text: "Hello from a tarball." }]) } }, taskId);
  console.log(outcome.status, outcome.result);
  await store.close?.();
}
const tokens = new SqliteTokenStore({ path: join(process.argv[2], "smoke.db") });
const created = await tokens.create({ principal: "smoke" });
console.log((await tokens.verify(created.token))?.principal);
await tokens.close();
`,
      );
      const { stdout, stderr } = await run(node, [join(consumer, "smoke.mjs"), work], { cwd: consumer });
      expect(stdout.trim().split("\n")).toEqual([
        "completed Hello from a tarball.",
        "completed Hello from a tarball.",
        "completed Hello from a tarball.",
        "smoke",
      ]);
      expect(stderr).toBe("");
    },
    60_000,
  );

  // examples/ as a user copies them next to the installed tarballs: plain `node index.ts` (Node
  // strips the types outside node_modules), no conditions, so every import is a published build.
  it.each(Object.entries(EXPECTED_LINES))(
    "run examples/%s from the tarballs",
    async (name, line) => {
      const folder = join(consumer, "examples", name);
      cpSync(join(repo, "examples", name), folder, { recursive: true });
      const stdout = await stdoutOf(
        name,
        run(process.execPath, ["--no-warnings", "index.ts"], { cwd: folder, timeout: 30_000 }),
      );
      expect(stdout).toMatch(line);
    },
    60_000,
  );
});

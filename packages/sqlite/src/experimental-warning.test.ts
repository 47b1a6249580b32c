// Node 22 prints "SQLite is an experimental feature" on stderr when node:sqlite first loads; an
// app embedding Sema must not print it on every start (src/node-sqlite.ts). Node 24 prints no such
// warning, so this runs the built package (dist/, what a user imports) on the repository's pinned
// Node 22 (tools/node22), beside a control that shows the warning is really there to hide.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const node22 = join(repo, "tools", "node22", "node_modules", "node", "bin", "node");
const SQLITE_WARNING = /ExperimentalWarning: SQLite is an experimental feature/;

/** stderr of `script` (an ES module) run by Node 22 from the repository root. */
async function stderrOf(script: string): Promise<string> {
  const { stderr } = await run(node22, ["--input-type=module", "-e", script], { cwd: repo });
  return stderr;
}

/** The spawned Node imports dist/: refuse a build older than the sources it would test. */
function assertBuilt(): void {
  const root = join(repo, "packages", "sqlite");
  const newest = (dir: string, keep: (file: string) => boolean) =>
    Math.max(
      0,
      ...readdirSync(dir, { recursive: true, encoding: "utf8" })
        .filter(keep)
        .map((file) => statSync(join(dir, file)).mtimeMs),
    );
  // Tests and fixtures are not built, so only the shipped sources count.
  const source = newest(join(root, "src"), (file) => file.endsWith(".ts") && !/\.(test|fixture)\.ts$/.test(file));
  if (!existsSync(join(root, "dist", "node-sqlite.js")) || newest(join(root, "dist"), () => true) < source)
    throw new Error("packages/sqlite/dist is older than its src/: run `npm run build` first");
}

describe.skipIf(!existsSync(node22))("SQLite's ExperimentalWarning on Node 22", () => {
  it("is printed by a plain import of node:sqlite (the control)", async () => {
    expect(await stderrOf(`import "node:sqlite";`)).toMatch(SQLITE_WARNING);
  });

  it("is not printed by @sema-agent/sqlite, while other warnings still are", async () => {
    assertBuilt();
    const stderr = await stderrOf(`import { SqliteStore } from "@sema-agent/sqlite";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const store = new SqliteStore({ path: ":memory:" });
await store.close();
// The writer thread loads node:sqlite too, through the same filter.
const threaded = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), "sema-warning-")), "w.db"), writer: "thread" });
await threaded.createTask({ taskId: "t1", created: { type: "task_created", v: 1, objective: "o", principal: "p" } });
await threaded.close();
process.emitWarning("Another feature is an experimental feature", "ExperimentalWarning");
process.emitWarning("something else", { type: "DeprecationWarning", code: "SEMA_TEST" });`);
    expect(stderr).not.toMatch(SQLITE_WARNING);
    expect(stderr).toMatch(/ExperimentalWarning: Another feature is an experimental feature/);
    expect(stderr).toMatch(/\[SEMA_TEST\] DeprecationWarning: something else/);
  });
});

if (!existsSync(node22)) {
  // describe.skipIf gives no reason; say why, so a skip is not mistaken for a pass.
  console.warn(`Skipping the Node 22 warning test: ${node22} is missing (npm ci installs it).`);
}

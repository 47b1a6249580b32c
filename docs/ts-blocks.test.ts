/**
 * Every ```ts block in the docs is type-checked against the workspace packages: the blocks are
 * written as modules into a git-ignored folder under docs/.vitepress/cache (so they resolve the
 * packages as a user's code in this repository would) and tsc runs on them with the project's
 * strict settings. A block must therefore be a whole program: imports included. A block copied
 * from a file (`<!-- snippet: … -->`) is left to the file's own check.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_DIR, markdownPages, REPO_DIR, tsBlocks, withoutSnippets } from "./docs-support.ts";

describe("TypeScript in the docs", () => {
  it("finds the fenced blocks, indented ones included", () => {
    expect(tsBlocks("a\n```ts\nconst x = 1;\n```\n  ```ts\n  const y = 2;\n  ```\n")).toEqual([
      "const x = 1;\n",
      "const y = 2;\n",
    ]);
  });

  it("type-checks every ```ts block", { timeout: 120_000 }, () => {
    const dir = join(DOCS_DIR, ".vitepress", "cache", "ts-blocks");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    let count = 0;
    // The API reference's blocks are signatures TypeDoc printed, not programs: they are checked
    // where they come from, the packages' own sources.
    for (const page of markdownPages().filter((page) => !page.startsWith("api/"))) {
      // A block copied from a file is that file, type-checked where it lives (docs/snippets by
      // docs/tsconfig.json, examples/ by theirs): its relative imports resolve only there.
      tsBlocks(withoutSnippets(readFileSync(join(DOCS_DIR, page), "utf8"))).forEach((block, index) => {
        count += 1;
        // `export {}` makes a block without imports a module too, so blocks never share names.
        writeFileSync(join(dir, `${page.replace(/[/.]/g, "-")}-${index + 1}.ts`), `${block}\nexport {};\n`);
      });
    }
    expect(count).toBeGreaterThan(3);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../../tsconfig.base.json",
        compilerOptions: { noEmit: true },
        include: ["*.ts"],
      }),
    );
    const tsc = spawnSync(join(REPO_DIR, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe("");
    expect(tsc.status).toBe(0);
  });
});

/**
 * The programs in docs/snippets run, offline, and print what the pages say they print; the pages
 * show each one inline, equal to its file, so a reader on GitHub sees the code too.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_DIR, markdownPages, REPO_DIR, snippetBlocks } from "./docs-support.ts";

describe("snippets in the pages", () => {
  const pages = markdownPages().filter((page) => !page.startsWith("api/"));
  const blocks = pages.flatMap((page) =>
    snippetBlocks(readFileSync(join(DOCS_DIR, page), "utf8")).map((block) => ({ page, ...block })),
  );

  it("finds a copied block after its marker, and only there", () => {
    expect(snippetBlocks("<!-- snippet: a.ts -->\n\n```ts\nconst a = 1;\n```\n\n```ts\nconst b = 2;\n```\n")).toEqual([
      { file: "a.ts", lang: "ts", body: "const a = 1;\n" },
    ]);
  });

  it("are inline, never a VitePress include a reader on GitHub sees as a bare line", () => {
    for (const page of pages) expect(readFileSync(join(DOCS_DIR, page), "utf8"), page).not.toMatch(/^\s*<<< /m);
  });

  it("equal the files they copy (copy the file into the block after changing it)", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const block of blocks)
      expect(block.body, `${block.page}: ${block.file}`).toBe(readFileSync(join(DOCS_DIR, block.file), "utf8"));
  });

  it("show every program of docs/snippets", () => {
    const shown = new Set(blocks.map((block) => block.file));
    for (const file of readdirSync(join(DOCS_DIR, "snippets"))) expect(shown, file).toContain(`snippets/${file}`);
  });
});

describe("docs/snippets", () => {
  it("approval.ts: the hook denies one call, a person approves the other, the task completes", () => {
    const out = execFileSync(join(REPO_DIR, "node_modules", ".bin", "node"), [join(DOCS_DIR, "snippets/approval.ts")], {
      encoding: "utf8",
    });
    expect(out).toBe("parked approval\nremove_file { path: 'notes.txt' }\ncompleted Removed notes.txt.\n");
  });

  it("delegation-budget.ts: the child is carved what is left, fails at its own limit, the parent answers", () => {
    const out = execFileSync(
      join(REPO_DIR, "node_modules", ".bin", "node"),
      [join(DOCS_DIR, "snippets/delegation-budget.ts")],
      { encoding: "utf8" },
    );
    expect(out).toBe(
      [
        "carved { maxTokens: 4600 }",
        "child failed BudgetExceeded",
        "delegate error The task used 800 tokens, reaching its limit of 800.",
        "completed 1600",
        "",
      ].join("\n"),
    );
  });

  it("fault-stores.ts: a task survives its host's death and a store outage, each note run once", () => {
    const out = execFileSync(
      join(REPO_DIR, "node_modules", ".bin", "node"),
      [join(DOCS_DIR, "snippets/fault-stores.ts")],
      {
        encoding: "utf8",
      },
    );
    expect(out).toBe("completed { a: 1, b: 1 }\ncompleted [ 1 ]\n");
  });

  it("fork-and-diff.ts: the fork parks, runs on a replaced result without the tool, and parts at that result", () => {
    const out = execFileSync(
      join(REPO_DIR, "node_modules", ".bin", "node"),
      [join(DOCS_DIR, "snippets/fork-and-diff.ts")],
      { encoding: "utf8" },
    );
    expect(out).toBe(
      [
        "parked forked true",
        "completed 1",
        "2 steps in common",
        "  = input    user ana: Plan my afternoon in Lisbon",
        '  = model    calls forecast({"city":"Lisbon"})',
        '> A tool     forecast({"city":"Lisbon"}) ok: Sunny in Lisbon, 24 °C',
        '> B tool     forecast({"city":"Lisbon"}) ok: Heavy rain in Lisbon, 15 °C',
        "  A model    Walk up to the castle, then a late lunch in Alfama.",
        "  B model    Rain all afternoon: the tile museum, then a café.",
        "  A end      completed: Walk up to the castle, then a late lunch in Alfama.",
        "  B end      completed: Rain all afternoon: the tile museum, then a café.",
        "(> marks the first divergence)",
        "",
      ].join("\n"),
    );
  });
});

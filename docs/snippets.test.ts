/** The programs in docs/snippets run, offline, and print what the pages say they print. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_DIR, REPO_DIR } from "./docs-support.ts";

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

/** Getting started lists every program in examples/, so a new example cannot go unmentioned. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOCS_DIR, REPO_DIR } from "./docs-support.ts";

const EXAMPLES_DIR = join(REPO_DIR, "examples");
const LINK = "https://github.com/sema-agent/sema/tree/main/examples/";

describe("the examples in the docs", () => {
  it("Getting started links every folder of examples/", () => {
    const examples = readdirSync(EXAMPLES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(EXAMPLES_DIR, entry.name, "package.json")))
      .map((entry) => entry.name)
      .sort();
    expect(examples.length).toBeGreaterThanOrEqual(9);
    const page = readFileSync(join(DOCS_DIR, "guide", "getting-started.md"), "utf8");
    const linked = [
      ...page.matchAll(/\]\(https:\/\/github\.com\/sema-agent\/sema\/tree\/main\/examples\/([a-z0-9-]+)\)/g),
    ]
      .map((match) => match[1])
      .filter((name, index, all) => all.indexOf(name) === index)
      .sort();
    expect(linked).toEqual(expect.arrayContaining(examples));
    expect(page).toContain(LINK);
  });

  it("are never counted in prose, so adding one makes no count wrong", () => {
    for (const file of [join(DOCS_DIR, "guide", "getting-started.md"), join(REPO_DIR, "README.md")])
      expect(readFileSync(file, "utf8"), file).not.toMatch(
        /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty) small programs\b/i,
      );
  });
});

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
});

import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathOutsideRootError } from "./confine-path.ts";
import { createSearchTextTool, SEARCH_MAX_FILE_BYTES, SEARCH_MAX_MATCHES } from "./search-text.ts";
import { abortedSignal, callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let search: ReturnType<typeof createSearchTextTool>;

beforeEach(async () => {
  sandbox = await createSandbox();
  search = createSearchTextTool(sandbox.root);
  await put("src/app.ts", "import x from 'y';\nconst Answer = 42;\n// answer below\nexport { Answer };\n");
  await put("src/util/math.ts", "export const add = (a, b) => a + b;\nexport const a.b = 1;\n");
  await put("README.md", "The answer is 42.\r\nSee src/app.ts\r\n");
});

afterEach(() => sandbox.cleanup());

async function put(name: string, content: string | Uint8Array): Promise<void> {
  const absolute = path.join(sandbox.root, name);
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFile(absolute, content);
}

describe("search_text", () => {
  it("finds a literal string, as file:line: text, case-sensitively by default", async () => {
    await expect(callTool(search, { pattern: "Answer" })).resolves.toBe(
      ["src/app.ts:2: const Answer = 42;", "src/app.ts:4: export { Answer };"].join("\n"),
    );
  });

  it("ignores case when asked", async () => {
    await expect(callTool(search, { pattern: "answer", caseSensitive: false })).resolves.toBe(
      [
        "README.md:1: The answer is 42.",
        "src/app.ts:2: const Answer = 42;",
        "src/app.ts:3: // answer below",
        "src/app.ts:4: export { Answer };",
      ].join("\n"),
    );
  });

  it("treats a literal pattern's special characters literally", async () => {
    await expect(callTool(search, { pattern: "a.b" })).resolves.toBe("src/util/math.ts:2: export const a.b = 1;");
    await expect(callTool(search, { pattern: "(a, b)" })).resolves.toBe(
      "src/util/math.ts:1: export const add = (a, b) => a + b;",
    );
  });

  it("matches a regular expression, with ^ and $ per line (CRLF included)", async () => {
    await expect(callTool(search, { pattern: "^export \\{", regex: true })).resolves.toBe(
      "src/app.ts:4: export { Answer };",
    );
    await expect(callTool(search, { pattern: "42\\.$", regex: true })).resolves.toBe("README.md:1: The answer is 42.");
  });

  it("reports an invalid regular expression clearly", async () => {
    await expect(callTool(search, { pattern: "([a-z", regex: true })).rejects.toThrow(
      'invalid regular expression "([a-z":',
    );
  });

  it("searches one directory or one file, naming files relative to the working directory", async () => {
    await expect(callTool(search, { pattern: "export", path: "src/util" })).resolves.toBe(
      ["src/util/math.ts:1: export const add = (a, b) => a + b;", "src/util/math.ts:2: export const a.b = 1;"].join(
        "\n",
      ),
    );
    await expect(callTool(search, { pattern: "See", path: "README.md" })).resolves.toBe("README.md:2: See src/app.ts");
  });

  it("skips binary files, large files, .git, node_modules and symlinks", async () => {
    await put("logo.png", new Uint8Array([0x00, 0x41, 0x6e, 0x73, 0x77, 0x65, 0x72]));
    await put("huge.log", `Answer\n${"x".repeat(SEARCH_MAX_FILE_BYTES)}`);
    await put(".git/config", "Answer\n");
    await put("node_modules/dep/index.js", "Answer\n");
    await writeFile(path.join(sandbox.outside, "secret.txt"), "Answer\n");
    await symlink(path.join(sandbox.outside, "secret.txt"), path.join(sandbox.root, "leak.txt"));
    await symlink(sandbox.outside, path.join(sandbox.root, "out"));
    await expect(callTool(search, { pattern: "Answer" })).resolves.toBe(
      [
        "src/app.ts:2: const Answer = 42;",
        "src/app.ts:4: export { Answer };",
        "[skipped 1 binary file and 1 file over 4.0 MiB]",
      ].join("\n"),
    );
  });

  it("says so when nothing matches", async () => {
    await expect(callTool(search, { pattern: "nowhere" })).resolves.toBe('No matches for "nowhere" in .');
    await expect(callTool(search, { pattern: "x{3}", regex: true, path: "src" })).resolves.toBe(
      "No matches for /x{3}/ in src",
    );
  });

  it("caps the matches and clips long lines", async () => {
    await put("many.txt", Array.from({ length: SEARCH_MAX_MATCHES + 10 }, () => `hit ${"y".repeat(400)}`).join("\n"));
    const lines = String(await callTool(search, { pattern: "hit", path: "many.txt" })).split("\n");
    expect(lines).toHaveLength(SEARCH_MAX_MATCHES + 1);
    expect(lines[0]).toBe(`many.txt:1: hit ${"y".repeat(296)}…`);
    expect(lines.at(-1)).toBe(`[stopped at ${SEARCH_MAX_MATCHES} matches: narrow the pattern or the path]`);
  });

  it("refuses paths outside the root", async () => {
    await symlink(sandbox.outside, path.join(sandbox.root, "out"));
    for (const requested of ["..", "../outside", sandbox.outside, "out"]) {
      await expect(callTool(search, { pattern: "x", path: requested })).rejects.toThrow(PathOutsideRootError);
    }
  });

  it("honours an aborted signal", async () => {
    await expect(callTool(search, { pattern: "x" }, abortedSignal())).rejects.toThrow("cancelled by the test");
  });
});

import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathOutsideRootError } from "./confine-path.ts";
import { createListDirTool, LIST_DIR_MAX_ENTRIES } from "./list-dir.ts";
import { abortedSignal, callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let listDir: ReturnType<typeof createListDirTool>;

beforeEach(async () => {
  sandbox = await createSandbox();
  listDir = createListDirTool(sandbox.root);
});

afterEach(() => sandbox.cleanup());

async function tree(files: string[]): Promise<void> {
  for (const file of files) {
    const absolute = path.join(sandbox.root, file);
    if (file.endsWith("/")) {
      await mkdir(absolute, { recursive: true });
    } else {
      await mkdir(path.dirname(absolute), { recursive: true });
      await writeFile(absolute, file);
    }
  }
}

describe("list_dir", () => {
  it("lists the working directory by default, sorted, directories marked with /", async () => {
    await tree(["b.txt", "a/", "C.md", "a/inner.txt", ".hidden"]);
    await expect(callTool(listDir, {})).resolves.toBe([".hidden", "C.md", "a/", "b.txt"].join("\n"));
    await expect(callTool(listDir, { path: "a" })).resolves.toBe("inner.txt");
  });

  it("lists a whole tree when recursive, without entering .git and node_modules", async () => {
    await tree([
      "src/z.ts",
      "src/lib/a.ts",
      "README.md",
      ".git/HEAD",
      "node_modules/x/index.js",
      "src/node_modules/y.js",
    ]);
    await expect(callTool(listDir, { recursive: true })).resolves.toBe(
      [".git/", "README.md", "node_modules/", "src/", "src/lib/", "src/lib/a.ts", "src/node_modules/", "src/z.ts"].join(
        "\n",
      ),
    );
    await expect(callTool(listDir, { path: "src", recursive: true })).resolves.toBe(
      ["lib/", "lib/a.ts", "node_modules/", "z.ts"].join("\n"),
    );
  });

  it("lists symlinks without following them", async () => {
    await tree(["real/file.txt"]);
    await symlink("real", path.join(sandbox.root, "link"));
    await symlink(sandbox.outside, path.join(sandbox.root, "out"));
    await expect(callTool(listDir, { recursive: true })).resolves.toBe(
      ["link", "out", "real/", "real/file.txt"].join("\n"),
    );
  });

  it("caps the listing and says how many entries were left out", async () => {
    const names = Array.from({ length: LIST_DIR_MAX_ENTRIES + 5 }, (_, index) => `f${String(index).padStart(4, "0")}`);
    await tree(names);
    const lines = String(await callTool(listDir, {})).split("\n");
    expect(lines).toHaveLength(LIST_DIR_MAX_ENTRIES + 1);
    expect(lines[0]).toBe("f0000");
    expect(lines[LIST_DIR_MAX_ENTRIES - 1]).toBe("f0999");
    expect(lines[LIST_DIR_MAX_ENTRIES]).toBe("[5 more entries not shown: list a subdirectory instead]");
  });

  it("reports an empty directory, a file and a missing path", async () => {
    await tree(["empty/", "file.txt"]);
    await expect(callTool(listDir, { path: "empty" })).resolves.toBe("[empty is empty]");
    await expect(callTool(listDir, { path: "file.txt" })).rejects.toThrow("file.txt is not a directory");
    await expect(callTool(listDir, { path: "missing" })).rejects.toThrow("missing does not exist");
  });

  it("refuses directories outside the root", async () => {
    await symlink(sandbox.outside, path.join(sandbox.root, "out"));
    for (const requested of ["..", "../root-evil", sandbox.outside, sandbox.evil, "out", "out/"]) {
      await expect(callTool(listDir, { path: requested })).rejects.toThrow(PathOutsideRootError);
    }
  });

  it("honours an aborted signal", async () => {
    await tree(["a/b/c.txt"]);
    await expect(callTool(listDir, { recursive: true }, abortedSignal())).rejects.toThrow("cancelled by the test");
  });
});

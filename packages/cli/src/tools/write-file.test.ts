import { chmod, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathOutsideRootError } from "./confine-path.ts";
import { abortedSignal, callTool, createSandbox, type Sandbox } from "./test-support.ts";
import { createWriteFileTool } from "./write-file.ts";

let sandbox: Sandbox;
let write: ReturnType<typeof createWriteFileTool>;

beforeEach(async () => {
  sandbox = await createSandbox();
  write = createWriteFileTool(sandbox.root);
});

afterEach(() => sandbox.cleanup());

const inRoot = (...parts: string[]) => path.join(sandbox.root, ...parts);

describe("write_file", () => {
  it("creates the file and its parent directories, and says how many bytes it wrote", async () => {
    await expect(callTool(write, { path: "docs/notes/todo.md", content: "héllo\n" })).resolves.toBe(
      "Wrote 7 bytes to docs/notes/todo.md",
    );
    await expect(readFile(inRoot("docs", "notes", "todo.md"), "utf8")).resolves.toBe("héllo\n");
  });

  it("is idempotent: the same call twice leaves the same file and returns the same result", async () => {
    const input = { path: "out.txt", content: "same\n" };
    const first = await callTool(write, input);
    const second = await callTool(write, input);
    expect(second).toBe(first);
    await expect(readFile(inRoot("out.txt"), "utf8")).resolves.toBe("same\n");
    expect(await readdir(sandbox.root)).toEqual(["out.txt"]); // no temporary file left behind
  });

  it("replaces an existing file whole and keeps its permissions", async () => {
    await writeFile(inRoot("run.sh"), "#!/bin/sh\necho old and longer\n");
    await chmod(inRoot("run.sh"), 0o750);
    await callTool(write, { path: "run.sh", content: "#!/bin/sh\necho new\n" });
    await expect(readFile(inRoot("run.sh"), "utf8")).resolves.toBe("#!/bin/sh\necho new\n");
    expect((await stat(inRoot("run.sh"))).mode & 0o777).toBe(0o750);
  });

  it("writes an empty file", async () => {
    await expect(callTool(write, { path: "empty", content: "" })).resolves.toBe("Wrote 0 bytes to empty");
    await expect(readFile(inRoot("empty"), "utf8")).resolves.toBe("");
  });

  it("writes through a symlink that stays inside to its target, keeping the link", async () => {
    await writeFile(inRoot("target.txt"), "old\n");
    await symlink("target.txt", inRoot("alias.txt"));
    await expect(callTool(write, { path: "alias.txt", content: "new\n" })).resolves.toBe("Wrote 4 bytes to target.txt");
    await expect(readFile(inRoot("target.txt"), "utf8")).resolves.toBe("new\n");
    await expect(readlink(inRoot("alias.txt"))).resolves.toBe("target.txt");
  });

  it("refuses a directory", async () => {
    await mkdir(inRoot("dir"));
    await expect(callTool(write, { path: "dir", content: "x" })).rejects.toThrow("dir is a directory");
    await expect(callTool(write, { path: ".", content: "x" })).rejects.toThrow(". is a directory");
  });

  it("refuses to write outside the root, and writes nothing there", async () => {
    await writeFile(path.join(sandbox.outside, "secret.txt"), "secret\n");
    await symlink(sandbox.outside, inRoot("out")); // a symlinked parent directory pointing out
    await symlink(path.join(sandbox.outside, "secret.txt"), inRoot("leak.txt"));
    await symlink(path.join(sandbox.outside, "planted.txt"), inRoot("dangling.txt"));
    await symlink(sandbox.evil, inRoot("evil"));
    const attempts = [
      "../outside/secret.txt",
      path.join(sandbox.outside, "secret.txt"),
      "out/secret.txt",
      "out/new-dir/new.txt",
      "leak.txt",
      "dangling.txt",
      "../root-evil/x.txt",
      path.join(sandbox.evil, "x.txt"),
      "evil/x.txt",
    ];
    for (const requested of attempts) {
      await expect(callTool(write, { path: requested, content: "pwned\n" })).rejects.toThrow(PathOutsideRootError);
    }
    expect(await readdir(sandbox.outside)).toEqual(["secret.txt"]);
    await expect(readFile(path.join(sandbox.outside, "secret.txt"), "utf8")).resolves.toBe("secret\n");
    expect(await readdir(sandbox.evil)).toEqual([]);
  });

  it("honours an aborted signal and writes nothing", async () => {
    await expect(callTool(write, { path: "a.txt", content: "x" }, abortedSignal())).rejects.toThrow(
      "cancelled by the test",
    );
    expect(await readdir(sandbox.root)).toEqual([]);
  });
});

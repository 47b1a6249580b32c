import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAppendFileTool } from "./append-file.ts";
import { PathOutsideRootError } from "./confine-path.ts";
import { abortedSignal, callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let append: ReturnType<typeof createAppendFileTool>;

beforeEach(async () => {
  sandbox = await createSandbox();
  append = createAppendFileTool(sandbox.root);
});

afterEach(() => sandbox.cleanup());

const inRoot = (...parts: string[]) => path.join(sandbox.root, ...parts);

describe("append_file", () => {
  it("creates a missing file (and its parents), then appends on every call", async () => {
    await expect(callTool(append, { path: "logs/run.log", content: "one\n" })).resolves.toBe(
      "Appended 4 bytes to logs/run.log (now 4 bytes, created it)",
    );
    await expect(callTool(append, { path: "logs/run.log", content: "two\n" })).resolves.toBe(
      "Appended 4 bytes to logs/run.log (now 8 bytes)",
    );
    await expect(readFile(inRoot("logs", "run.log"), "utf8")).resolves.toBe("one\ntwo\n");
  });

  it("appends to an existing file", async () => {
    await writeFile(inRoot("a.txt"), "start");
    await callTool(append, { path: "a.txt", content: "-end" });
    await expect(readFile(inRoot("a.txt"), "utf8")).resolves.toBe("start-end");
  });

  it("refuses a directory", async () => {
    await mkdir(inRoot("dir"));
    await expect(callTool(append, { path: "dir", content: "x" })).rejects.toThrow("dir is a directory");
  });

  it("refuses to append outside the root, and changes nothing there", async () => {
    await writeFile(path.join(sandbox.outside, "secret.txt"), "secret\n");
    await symlink(path.join(sandbox.outside, "secret.txt"), inRoot("leak.txt"));
    await symlink(sandbox.outside, inRoot("out"));
    await symlink(path.join(sandbox.outside, "planted.txt"), inRoot("dangling.txt"));
    const attempts = [
      "../outside/secret.txt",
      path.join(sandbox.outside, "secret.txt"),
      "leak.txt",
      "out/secret.txt",
      "out/new.txt",
      "dangling.txt",
      "../root-evil/x",
    ];
    for (const requested of attempts) {
      await expect(callTool(append, { path: requested, content: "pwned\n" })).rejects.toThrow(PathOutsideRootError);
    }
    expect(await readdir(sandbox.outside)).toEqual(["secret.txt"]);
    await expect(readFile(path.join(sandbox.outside, "secret.txt"), "utf8")).resolves.toBe("secret\n");
  });

  it("honours an aborted signal", async () => {
    await expect(callTool(append, { path: "a.txt", content: "x" }, abortedSignal())).rejects.toThrow(
      "cancelled by the test",
    );
    expect(await readdir(sandbox.root)).toEqual([]);
  });
});

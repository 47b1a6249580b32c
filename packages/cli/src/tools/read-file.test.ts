import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PathOutsideRootError } from "./confine-path.ts";
import { createReadFileTool, READ_FILE_MAX_BYTES } from "./read-file.ts";
import { abortedSignal, callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let readFile: ReturnType<typeof createReadFileTool>;

beforeEach(async () => {
  sandbox = await createSandbox();
  readFile = createReadFileTool(sandbox.root);
});

afterEach(() => sandbox.cleanup());

const put = (name: string, content: string | Uint8Array) => writeFile(path.join(sandbox.root, name), content);
const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n");

describe("read_file", () => {
  it("returns a whole file's text exactly", async () => {
    await put("a.txt", "héllo\nwörld\n");
    await put("no-newline.txt", "one\ntwo");
    await put("crlf.txt", "one\r\ntwo\r\n");
    await expect(callTool(readFile, { path: "a.txt" })).resolves.toBe("héllo\nwörld\n");
    await expect(callTool(readFile, { path: "no-newline.txt" })).resolves.toBe("one\ntwo");
    await expect(callTool(readFile, { path: "crlf.txt" })).resolves.toBe("one\r\ntwo\r\n");
  });

  it("reads a window of lines and says where to read on", async () => {
    await put("n.txt", `${numbered(10)}\n`);
    await expect(callTool(readFile, { path: "n.txt", offset: 3, limit: 2 })).resolves.toBe(
      "line 3\nline 4\n[lines 3–4 shown; the file goes on: read on with offset=5]",
    );
    await expect(callTool(readFile, { path: "n.txt", offset: 9 })).resolves.toBe(
      "line 9\nline 10\n[lines 9–10 of 10: end of file]",
    );
    await expect(callTool(readFile, { path: "n.txt", offset: 9, limit: 2 })).resolves.toBe(
      "line 9\nline 10\n[lines 9–10 of 10: end of file]",
    );
    await expect(callTool(readFile, { path: "n.txt", offset: 10, limit: 5 })).resolves.toBe(
      "line 10\n[lines 10–10 of 10: end of file]",
    );
  });

  it("refuses an offset past the end", async () => {
    await put("n.txt", numbered(3));
    await expect(callTool(readFile, { path: "n.txt", offset: 4 })).rejects.toThrow(
      "offset 4 is past the end of n.txt, which has 3 lines",
    );
  });

  it("reports an empty file and a binary one", async () => {
    await put("empty.txt", "");
    await put("image.bin", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    await expect(callTool(readFile, { path: "empty.txt" })).resolves.toBe("[empty.txt is empty]");
    await expect(callTool(readFile, { path: "image.bin" })).resolves.toBe(
      "[image.bin is a binary file (7 bytes); its contents are not shown]",
    );
  });

  it("reads only the head of a file larger than the cap, and can read on from there", async () => {
    const line = "x".repeat(99); // 100 bytes with its newline
    const count = Math.ceil((READ_FILE_MAX_BYTES * 2) / 100);
    await put("big.txt", `${Array.from({ length: count }, () => line).join("\n")}\n`);
    const head = await callTool(readFile, { path: "big.txt" });
    expect(typeof head).toBe("string");
    const shown = Math.floor(READ_FILE_MAX_BYTES / 100);
    expect(head).toContain(`[output capped at 256.0 KiB (the file is 512.0 KiB): lines 1–${shown} shown;`);
    expect(head).toContain(`read on with offset=${shown + 1}]`);
    expect(String(head).length).toBeLessThanOrEqual(READ_FILE_MAX_BYTES + 200);
    const next = await callTool(readFile, { path: "big.txt", offset: shown + 1, limit: 1 });
    expect(next).toBe(
      `${line}\n[lines ${shown + 1}–${shown + 1} shown; the file goes on: read on with offset=${shown + 2}]`,
    );
  });

  it("shows the head of a single line longer than the cap", async () => {
    await put("minified.js", "é".repeat(READ_FILE_MAX_BYTES)); // twice the cap in bytes
    const result = String(await callTool(readFile, { path: "minified.js" }));
    expect(result).toBe(
      `${"é".repeat(READ_FILE_MAX_BYTES / 2)}\n[line 1 is longer than 256.0 KiB: only its head is shown]`,
    );
  });

  it("keeps multi-byte characters intact across read chunks", async () => {
    const text = `${"a".repeat(65_535)}€€€\nend\n`; // the first € straddles the 64 KiB chunk boundary
    await put("chunks.txt", text);
    await expect(callTool(readFile, { path: "chunks.txt" })).resolves.toBe(text);
  });

  it("says what is wrong with a directory or a missing file", async () => {
    await mkdir(path.join(sandbox.root, "dir"));
    await expect(callTool(readFile, { path: "dir" })).rejects.toThrow("dir is a directory: use list_dir");
    await expect(callTool(readFile, { path: "missing.txt" })).rejects.toThrow("missing.txt does not exist");
  });

  it("reads through a symlink that stays inside", async () => {
    await put("real.txt", "real\n");
    await symlink("real.txt", path.join(sandbox.root, "alias.txt"));
    await expect(callTool(readFile, { path: "alias.txt" })).resolves.toBe("real\n");
  });

  it("refuses paths outside the root", async () => {
    await writeFile(path.join(sandbox.outside, "secret.txt"), "secret\n");
    await symlink(path.join(sandbox.outside, "secret.txt"), path.join(sandbox.root, "leak.txt"));
    await symlink(sandbox.outside, path.join(sandbox.root, "out"));
    for (const requested of [
      "../outside/secret.txt",
      path.join(sandbox.outside, "secret.txt"),
      "leak.txt",
      "out/secret.txt",
    ]) {
      await expect(callTool(readFile, { path: requested })).rejects.toThrow(PathOutsideRootError);
    }
  });

  it("honours an aborted signal", async () => {
    await put("a.txt", "a\n");
    await expect(callTool(readFile, { path: "a.txt" }, abortedSignal())).rejects.toThrow("cancelled by the test");
  });
});

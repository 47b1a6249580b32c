// Finding 9 of issue 13: confinement that survives a swapped ancestor and hard links.
import { link, mkdir, open as openFile, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Tool } from "@sema-agent/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConfinedPath, PathOutsideRootError } from "./confine-path.ts";
import { createFileTools } from "./index.ts";
import { hasProcFd, verifyInside } from "./safe-open.ts";
import { callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await createSandbox();
  await mkdir(path.join(sandbox.root, "sub"));
  await writeFile(path.join(sandbox.root, "sub", "f.txt"), "inside\n");
  await mkdir(path.join(sandbox.outside, "sub"));
  await writeFile(path.join(sandbox.outside, "sub", "f.txt"), "SECRET\n");
});

afterEach(() => sandbox.cleanup());

const tool = (tools: Tool[], name: string): Tool => {
  const found = tools.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
};

/**
 * Between the check and the open, `root/sub` is moved aside and replaced by a symbolic link to
 * `outside/sub`: the race an attacker with a second process wins now and then, staged every time.
 */
function swapAncestorBeforeOpen(): Tool[] {
  let swapped = false;
  const beforeOpen = async (_target: ConfinedPath) => {
    if (swapped) return;
    swapped = true;
    await rename(path.join(sandbox.root, "sub"), path.join(sandbox.root, "sub-aside"));
    await symlink(path.join(sandbox.outside, "sub"), path.join(sandbox.root, "sub"));
  };
  return createFileTools(sandbox.root, { beforeOpen });
}

describe.runIf(hasProcFd())("confinement under an ancestor swapped for a symlink after the check", () => {
  it("read_file refuses instead of returning the outside file", async () => {
    const outcome = callTool(tool(swapAncestorBeforeOpen(), "read_file"), { path: "sub/f.txt" });
    await expect(outcome).rejects.toThrow(PathOutsideRootError);
    await expect(outcome).rejects.toThrow(/changed while it was being opened/);
  });

  it("list_dir and search_text refuse instead of showing the outside directory", async () => {
    await expect(callTool(tool(swapAncestorBeforeOpen(), "list_dir"), { path: "sub" })).rejects.toThrow(
      PathOutsideRootError,
    );
    await expect(
      callTool(tool(swapAncestorBeforeOpen(), "search_text"), { pattern: "SECRET", path: "sub" }),
    ).rejects.toThrow(PathOutsideRootError);
  });

  it("write_file and append_file refuse and leave the outside directory untouched", async () => {
    await expect(
      callTool(tool(swapAncestorBeforeOpen(), "write_file"), { path: "sub/f.txt", content: "pwned\n" }),
    ).rejects.toThrow(PathOutsideRootError);
    await expect(
      callTool(tool(swapAncestorBeforeOpen(), "append_file"), { path: "sub/new.txt", content: "pwned\n" }),
    ).rejects.toThrow(PathOutsideRootError);
    expect(await readdir(path.join(sandbox.outside, "sub"))).toEqual(["f.txt"]);
    await expect(readFile(path.join(sandbox.outside, "sub", "f.txt"), "utf8")).resolves.toBe("SECRET\n");
  });

  it("a directory moved out of the root after it was opened is caught by its descriptor's real path", async () => {
    const handle = await openFile(path.join(sandbox.root, "sub"), "r");
    await rename(path.join(sandbox.root, "sub"), path.join(sandbox.outside, "moved"));
    await expect(verifyInside(handle, sandbox.root, "sub", path.join(sandbox.root, "sub"))).rejects.toThrow(
      PathOutsideRootError,
    );
  });
});

describe("hard links to a file outside the root", () => {
  const outsideFile = () => path.join(sandbox.outside, "sub", "f.txt");
  beforeEach(() => link(outsideFile(), path.join(sandbox.root, "linked.txt")));

  it("read_file refuses one unless the agent allows hard links", async () => {
    await expect(callTool(tool(createFileTools(sandbox.root), "read_file"), { path: "linked.txt" })).rejects.toThrow(
      /has 2 hard links/,
    );
    const lenient = createFileTools(sandbox.root, { allowHardLinks: true });
    await expect(callTool(tool(lenient, "read_file"), { path: "linked.txt" })).resolves.toBe("SECRET\n");
  });

  it("search_text skips one and says so; a search of the file itself is refused", async () => {
    const search = tool(createFileTools(sandbox.root), "search_text");
    await expect(callTool(search, { pattern: "SECRET" })).resolves.toBe(
      'No matches for "SECRET" in .\n[skipped 1 file with more than one hard link]',
    );
    await expect(callTool(search, { pattern: "SECRET", path: "linked.txt" })).rejects.toThrow(/hard links/);
  });

  it("append_file and write_file refuse one, even when hard links are allowed for reading", async () => {
    const tools = createFileTools(sandbox.root, { allowHardLinks: true });
    await expect(callTool(tool(tools, "append_file"), { path: "linked.txt", content: "pwned\n" })).rejects.toThrow(
      /hard links/,
    );
    await expect(callTool(tool(tools, "write_file"), { path: "linked.txt", content: "pwned\n" })).rejects.toThrow(
      /hard links/,
    );
    await expect(readFile(outsideFile(), "utf8")).resolves.toBe("SECRET\n");
  });
});

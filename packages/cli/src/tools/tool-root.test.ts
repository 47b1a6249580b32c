import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PathOutsideRootError } from "./confine-path.ts";
import { createFileTools } from "./index.ts";
import { callTool, createSandbox, type Sandbox } from "./test-support.ts";

let sandbox: Sandbox;
let protectedPaths: string[];

beforeAll(async () => {
  sandbox = await createSandbox();
  await mkdir(path.join(sandbox.root, ".sema"));
  await mkdir(path.join(sandbox.root, "dir"));
  await writeFile(path.join(sandbox.root, ".sema", "sema.db"), "SQLite format 3\0");
  // A link to the store's directory: the same file under another name.
  await symlink(".sema", path.join(sandbox.root, "alias"));
  protectedPaths = [path.join(sandbox.root, ".sema", "sema.db"), path.join(sandbox.root, "sema.config.mjs")];
});

afterAll(() => sandbox.cleanup());

/** Spellings of one directory step that lead back where they started: `./`, `dir/../`, `//`. */
const detour = fc.constantFrom("./", "dir/../", "/", "dir/./../");

describe("protectedPaths", () => {
  it("refuses every spelling of a protected file to write_file and append_file", async () => {
    const tools = createFileTools(sandbox.root, { protectedPaths });
    await fc.assert(
      fc.asyncProperty(
        fc.array(detour, { maxLength: 3 }),
        fc.constantFrom(".sema/sema.db", "alias/sema.db", "sema.config.mjs", ".sema/../sema.config.mjs"),
        fc.constantFrom("write_file", "append_file"),
        async (detours, file, name) => {
          const tool = tools.find((candidate) => candidate.name === name);
          if (tool === undefined) throw new Error(`no ${name}`);
          await expect(callTool(tool, { path: detours.join("") + file, content: "x" })).rejects.toThrow(
            PathOutsideRootError,
          );
        },
      ),
      { numRuns: 60 },
    );
    await expect(readFile(path.join(sandbox.root, ".sema", "sema.db"), "utf8")).resolves.toBe("SQLite format 3\0");
  });

  it("lets every other file be written, and reads stay allowed", async () => {
    const tools = createFileTools(sandbox.root, { protectedPaths });
    const write = tools.find((candidate) => candidate.name === "write_file");
    const read = tools.find((candidate) => candidate.name === "read_file");
    if (write === undefined || read === undefined) throw new Error("tools missing");
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z0-9.-]{0,12}$/), async (name) => {
        fc.pre(name !== "sema.config.mjs");
        await expect(callTool(write, { path: `dir/${name}`, content: "ok" })).resolves.toMatch(/^Wrote 2 bytes/);
      }),
      { numRuns: 40 },
    );
    await expect(callTool(read, { path: ".sema/sema.db" })).resolves.toMatch(/binary file/);
  });
});

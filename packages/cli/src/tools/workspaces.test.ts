import { stat } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "./index.ts";
import { callTool, createSandbox, type Sandbox, toolContext } from "./test-support.ts";
import { workspaceName, workspaceResolver } from "./workspaces.ts";

describe("workspaceName", () => {
  it("is a safe single path component for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (id) => {
        const name = workspaceName(id);
        expect(name).toMatch(/^[A-Za-z0-9_-]{1,40}-[0-9a-f]{16}$/);
        expect(path.basename(name)).toBe(name);
      }),
      { numRuns: 500 },
    );
  });

  it("never gives two distinct ids the same name, even ids whose slugs agree", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        fc.pre(a !== b);
        expect(workspaceName(a)).not.toBe(workspaceName(b));
      }),
      { numRuns: 500 },
    );
    const slugTwins = ["a/b", "a_b", "a?b", "a..b", "A_b", `${"x".repeat(40)}1`, `${"x".repeat(40)}2`];
    expect(new Set(slugTwins.map(workspaceName)).size).toBe(slugTwins.length);
  });
});

describe("workspaceResolver", () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await createSandbox();
  });
  afterEach(() => sandbox.cleanup());

  it("gives each principal (or task) its own directory, made with mode 0700 on first use", async () => {
    const base = path.join(sandbox.root, "workspaces");
    const tools = createFileTools(workspaceResolver(base, "principal"));
    const write = tools.find((tool) => tool.name === "write_file");
    const read = tools.find((tool) => tool.name === "read_file");
    if (write === undefined || read === undefined) throw new Error("tools missing");
    const as = (principal: string, taskId = "t1") => ({ ...toolContext(), principal, taskId });
    await write.execute({ path: "report.txt", content: "acme's\n" }, as("acme"));
    await expect(read.execute({ path: "report.txt" }, as("acme", "t2"))).resolves.toBe("acme's\n");
    await expect(read.execute({ path: "report.txt" }, as("evil"))).rejects.toThrow("report.txt does not exist");
    await expect(read.execute({ path: `../${workspaceName("acme")}/report.txt` }, as("evil"))).rejects.toThrow(
      /outside the working directory/,
    );
    const made = await stat(path.join(base, workspaceName("acme")));
    expect(made.mode & 0o777).toBe(0o700);

    const perTask = createFileTools(workspaceResolver(base, "task")).find((tool) => tool.name === "read_file");
    if (perTask === undefined) throw new Error("tool missing");
    await expect(perTask.execute({ path: "report.txt" }, as("acme", "t1"))).rejects.toThrow("does not exist");
    expect(workspaceResolver(base, "task")(as("acme", "t9"))).toBe(
      path.join(base, workspaceName("acme"), workspaceName("t9")),
    );
    await expect(callTool(perTask, { path: "x" })).rejects.toThrow("x does not exist");
  });
});

import path from "node:path";
import { describe, expect, it } from "vitest";
import { createFileTools, PathOutsideRootError } from "./index.ts";
import { callTool, createSandbox } from "./test-support.ts";

describe("createFileTools", () => {
  it("makes the five tools with their flags and an object JSON Schema each", () => {
    const tools = createFileTools("/somewhere");
    expect(tools.map((tool) => [tool.name, tool.readOnly ?? false, tool.idempotent ?? false])).toEqual([
      ["read_file", true, true],
      ["list_dir", true, true],
      ["search_text", true, true],
      ["write_file", false, true],
      ["append_file", false, false],
    ]);
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(80);
      expect(tool.jsonSchema).toMatchObject({ type: "object" });
    }
    expect(tools[0]?.jsonSchema).toMatchObject({ required: ["path"] });
    expect(tools[1]?.jsonSchema).not.toHaveProperty("required");
    expect(tools[2]?.jsonSchema).toMatchObject({ required: ["pattern"] });
    expect(tools[3]?.jsonSchema).toMatchObject({ required: ["path", "content"] });
  });

  it("binds every tool to its root", async () => {
    const sandbox = await createSandbox();
    try {
      const inputs: Record<string, object> = {
        read_file: {},
        list_dir: {},
        search_text: { pattern: "x" },
        write_file: { content: "x" },
        append_file: { content: "x" },
      };
      for (const tool of createFileTools(sandbox.root)) {
        for (const outsidePath of ["../outside/f", path.join(sandbox.outside, "f"), path.join(sandbox.evil, "f")]) {
          await expect(callTool(tool, { ...inputs[tool.name], path: outsidePath })).rejects.toThrow(
            PathOutsideRootError,
          );
        }
      }
    } finally {
      await sandbox.cleanup();
    }
  });
});

// `sema mcp` under the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli), a client
// nobody here wrote: it spawns the server over stdio, lists the tools and calls one.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const SEMA = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/package.json")),
  "build",
  "index.js",
);
const run = promisify(execFile);

/** The inspector in a fresh directory; it reads its own package.json by a path it checks from its
 * working directory (1.0.3), so that directory's parent has one. */
async function inspect(args: string[]): Promise<unknown> {
  const base = mkdtempSync(join(tmpdir(), "sema-inspector-"));
  writeFileSync(join(base, "package.json"), "{}");
  writeFileSync(join(base, "turns.json"), JSON.stringify({ turns: [{ text: "Inspected." }] }));
  const cwd = join(base, "work");
  mkdirSync(cwd);
  const server = [process.execPath, SEMA, "mcp", "--model", `script:${join(base, "turns.json")}`];
  const { stdout } = await run(process.execPath, [INSPECTOR, ...server, ...args], {
    cwd,
    env: { ...process.env, SEMA_STORE_URL: "", SEMA_DB: "", SEMA_TOKEN: "" },
    timeout: 50_000,
  });
  return JSON.parse(stdout);
}

describe("sema mcp under the MCP Inspector CLI", () => {
  it("lists the tools and runs the agent", { timeout: 60_000 }, async () => {
    const listed = (await inspect(["--method", "tools/list"])) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name)).toContain("run_default");
    expect(listed.tools.map((tool) => tool.name)).toContain("decide_approval");
    const called = (await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "run_default",
      "--tool-arg",
      "objective=Look",
    ])) as { content: { text: string }[]; structuredContent: { status: string } };
    expect(called.content[0]?.text).toBe("Inspected.");
    expect(called.structuredContent.status).toBe("completed");
  });
});

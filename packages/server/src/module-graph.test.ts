/**
 * What the package loads: the root of `@sema-agent/server` with an app that mounts no protocol
 * loads none of the A2A, MCP or AG-UI SDKs (nor Sema's modules for them, nor any `node:*` module);
 * mounting each protocol loads its own (the control, which proves the recording sees them). In
 * a real child process, recording every module it resolved.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const CHILD = fileURLToPath(new URL("./test-support/root-graph-child.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sema-server-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** The modules a child loaded that created an app with `protocols` (by name) and served one request. */
async function modulesWith(protocols: string[]): Promise<string[]> {
  const log = join(dir, `modules-${runs++}.txt`);
  const child = spawn(process.execPath, [CHILD, ...protocols], {
    env: { ...process.env, SEMA_MODULE_LOG: log },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  expect(code, output).toBe(0);
  return readFileSync(log, "utf8").split("\n");
}

const SDKS = {
  a2a: /\/node_modules\/@a2a-js\/sdk\//,
  mcp: /\/node_modules\/@modelcontextprotocol\/sdk\//,
  "ag-ui": /\/node_modules\/@ag-ui\//,
};
const OWN = {
  a2a: /\/packages\/server\/src\/a2a\//,
  mcp: /\/packages\/server\/src\/mcp\//,
  "ag-ui": /\/packages\/server\/src\/ag-ui\//,
  "ui-stream": /\/packages\/server\/src\/ui-stream\//,
  console: /\/packages\/server\/src\/console\//,
};

describe("what @sema-agent/server loads", () => {
  it("an app with no protocol loads no protocol SDK, none of the protocols' modules and no node:* module", {
    timeout: 60_000,
  }, async () => {
    const loaded = await modulesWith([]);
    // The control for the recording: the app itself was loaded from the sources.
    expect(loaded.some((url) => url.endsWith("/packages/server/src/app.ts"))).toBe(true);
    for (const pattern of [...Object.values(SDKS), ...Object.values(OWN)])
      expect(loaded.filter((url) => pattern.test(url))).toEqual([]);
    // Nothing of Node at all: no built-in module, no Node http server. The app runs wherever Hono does.
    expect(loaded.filter((url) => url.startsWith("node:") || /@hono\/node-server/.test(url))).toEqual([]);
  });

  it.each(Object.keys(SDKS) as (keyof typeof SDKS)[])(
    "mounting %s loads its SDK and no other protocol's (the control)",
    {
      timeout: 60_000,
    },
    async (name) => {
      const loaded = await modulesWith([name]);
      expect(loaded.some((url) => SDKS[name].test(url))).toBe(true);
      for (const [other, pattern] of Object.entries(SDKS))
        if (other !== name) expect(loaded.filter((url) => pattern.test(url))).toEqual([]);
    },
  );
});

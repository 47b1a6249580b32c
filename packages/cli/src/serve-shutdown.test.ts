// `sema serve` as a real process: an idle server exits right after SIGTERM, not after the
// shutdown deadline (the pool's deadline timer used to keep it alive for the whole 10 s).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const NODE_ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));

describe("sema serve shutdown", () => {
  it("exits well within the 10 s deadline when SIGTERM finds it idle", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-shutdown-"));
    writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "done" }] }));
    const child = spawn(process.execPath, [NODE_ENTRY, "serve", "--port", "0", "--model", "script:turns.json"], {
      cwd: dir,
      env: { ...process.env, SEMA_STORE_URL: "", SEMA_DB: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await expect.poll(() => output, { timeout: 30_000, interval: 50 }).toMatch(/serving http/);
    child.kill("SIGTERM");
    // The deadline is 10 s; an idle server has nothing to wait for. Polled, with margin for a
    // loaded machine, but far below the deadline it used to sit out.
    const code = await Promise.race([
      exited,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 5000)),
    ]);
    if (code === "still running") child.kill("SIGKILL");
    expect(code, output).toBe(0);
  });
});

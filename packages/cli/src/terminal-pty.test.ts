// `sema run` in a real pseudo-terminal (util-linux `script`), as a person sees it: the thinking
// line before the model's first token, and a line typed to steer drawn on its own, attributed,
// with the stream going on below it. The terminal's own echo is off (the CLI reads keys raw).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERASE_LINE } from "./render.ts";

const NODE_ENTRY = fileURLToPath(new URL("./test-support/sema-node.ts", import.meta.url));
const SCRIPT = "/usr/bin/script";
const hasScript = existsSync(SCRIPT);
if (!hasScript) console.warn(`skipped: the pseudo-terminal tests need util-linux ${SCRIPT}`);

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/** `sema …` under `script -qfec`: the child's stdin and stdout are a PTY; ours are its master. */
function inPty(
  dir: string,
  args: string[],
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const command = [process.execPath, NODE_ENTRY, ...args].map(quote).join(" ");
  const child = spawn(SCRIPT, ["-qfec", command, "/dev/null"], {
    cwd: dir,
    env: { ...process.env, SEMA_STORE_URL: "", SEMA_DB: "", TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  // The terminal writes \r\n for each \n.
  return { child, output: () => output.replaceAll("\r\n", "\n"), exited };
}

describe.skipIf(!hasScript)("sema run in a pseudo-terminal", () => {
  it("shows thinking… until the first token, then the text on a clean line", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-pty-"));
    writeFileSync(join(dir, "turns.json"), JSON.stringify({ turns: [{ text: "Hello there.", delayMs: 1500 }] }));
    const run = inPty(dir, ["run", "Say hello", "--model", "script:turns.json"]);
    await expect.poll(run.output, { timeout: 30_000, interval: 50 }).toContain("thinking…");
    expect(await run.exited, run.output()).toBe(0);
    const out = run.output();
    // Erased, not left behind: the text starts at the beginning of the thinking line's row.
    expect(out).toContain(`${ERASE_LINE}Hello there.\n`);
    expect(out.slice(out.indexOf("Hello there."))).not.toContain("thinking");
  });

  it("a typed steer is its own attributed line; the stream goes on below it", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-pty-"));
    writeFileSync(
      join(dir, "turns.json"),
      JSON.stringify({
        turns: [
          {
            text: "Reading the files one by one, slowly and with care.",
            // About 3 s of streaming: time to type into the middle of it on a loaded machine.
            chunkSize: 2,
            deltaDelayMs: 120,
            toolCalls: [{ name: "list_dir", input: {} }],
          },
          { text: "Took your note.", delayMs: 300 },
        ],
      }),
    );
    const run = inPty(dir, ["run", "Read them", "--model", "script:turns.json"]);
    await expect.poll(run.output, { timeout: 30_000, interval: 20 }).toContain("Reading");
    run.child.stdin?.write("mind the");
    await expect.poll(run.output, { timeout: 10_000, interval: 20 }).toContain("› mind the");
    run.child.stdin?.write(" tests\r");
    expect(await run.exited, run.output()).toBe(0);
    const out = run.output();
    // The streamed line ended before the typing; the typing was erased and replaced by the steer.
    expect(out).toMatch(/Reading[^\n]*\n› mind the tests\r\x1b\[2K\x1b\[1m» you \(steer\):\x1b\[0m mind the tests\n/);
    // The terminal echoed nothing: the text typed appears only as the CLI drew it.
    expect(out.split("mind the tests").length - 1).toBe(3); // the typing, the steer line, the input the model got
    expect(out).toContain("» input received (steer)");
    expect(out).toContain("Took your note.");
    // The streamed text is whole: its start above the steer (after the thinking line's erase),
    // the rest below it (around any line the leg printed meanwhile), up to the turn's line.
    const head = /\r\x1b\[2K([^\r\n]*)\n› mind/.exec(out)?.[1] ?? "";
    const below = out.slice(out.indexOf("mind the tests\n") + "mind the tests\n".length, out.indexOf("· turn 1"));
    const tail = below
      .replace(/\x1b\[\d*[mK]|\r|. thinking… \d+\.\ds/g, "")
      .split("\n")
      .filter((line) => !/^(»|·|→|←)/.test(line))
      .join("");
    expect(head + tail).toBe("Reading the files one by one, slowly and with care.");
  });
});

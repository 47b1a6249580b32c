// `sema usage` in process over a real SQLite file, with quotas from sema.config.json.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./context.ts";
import { main } from "./main.ts";

function capture(cwd: string): { io: CliIo; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: { write: (t: string) => (out += t), isTTY: false },
    stderr: { write: (t: string) => (err += t) },
    env: {},
    cwd,
  };
  return { io, out: () => out, err: () => err };
}

describe("sema usage", () => {
  it("prints the principal's counted usage beside its quotas from sema.config.json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-usage-"));
    const db = join(dir, "test.db");
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "Done." }] }));
    const run = capture(dir);
    expect(await main(["run", "Say done", "--model", `script:${script}`, "--db", db], run.io)).toBe(0);
    writeFileSync(
      join(dir, "sema.config.json"),
      JSON.stringify({
        agents: { main: { model: `script:${script}` } },
        quotas: { default: { tokensPerDay: 5000, concurrentTasks: 2 }, principals: { other: {} } },
      }),
    );

    const json = capture(dir);
    expect(await main(["usage", "--json", "--db", db], json.io)).toBe(0);
    const report = JSON.parse(json.out()) as Record<string, unknown>;
    // The scripted turn counts 10 input and 5 output tokens.
    expect(report).toMatchObject({
      principal: "local",
      day: { tokens: 15, costUsd: 0 },
      month: { tokens: 15 },
      activeTasks: 0,
      quotas: { tokensPerDay: 5000, concurrentTasks: 2 },
    });

    const text = capture(dir);
    expect(await main(["usage", "--db", db], text.io)).toBe(0);
    expect(text.out()).toMatch(
      /^Principal local at \S+\n {2}last 24 h \(since \S+\): 15 tokens of 5000 tokens, \$0\.0000\n/,
    );
    expect(text.out()).toContain("active tasks: 0 of 2");

    const other = capture(dir);
    expect(await main(["usage", "--json", "--principal", "other", "--db", db], other.io)).toBe(0);
    expect(JSON.parse(other.out())).toMatchObject({ principal: "other", day: { tokens: 0 }, quotas: {} });
  });

  it("a token created with --quota narrows its principal's quotas; a bad --quota is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-usage-"));
    const db = join(dir, "test.db");
    writeFileSync(
      join(dir, "sema.config.json"),
      JSON.stringify({ agents: { main: { model: "script:x.json" } }, quotas: { default: { tokensPerDay: 5000 } } }),
    );
    const made = capture(dir);
    expect(
      await main(
        [
          "token",
          "create",
          "--principal",
          "acme",
          "--quota",
          "tokensPerDay=100",
          "--quota",
          "costUsdPerMonth=2.5",
          "--db",
          db,
        ],
        made.io,
      ),
    ).toBe(0);
    expect(made.err()).toContain('quotas {"tokensPerDay":100,"costUsdPerMonth":2.5}');
    const json = capture(dir);
    expect(await main(["usage", "--json", "--principal", "acme", "--db", db], json.io)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({ quotas: { tokensPerDay: 100, costUsdPerMonth: 2.5 } });
    const bad = capture(dir);
    expect(await main(["token", "create", "--principal", "acme", "--quota", "tokensPerDay", "--db", db], bad.io)).toBe(
      2,
    );
    expect(bad.err()).toContain("--quota takes name=number");
    const unknown = capture(dir);
    expect(
      await main(["token", "create", "--principal", "acme", "--quota", "tokensPerDai=5", "--db", db], unknown.io),
    ).toBe(2);
    expect(unknown.err()).toContain("tokensPerDai");
  });

  it("refuses quotas that fail their schema, naming the key (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sema-usage-"));
    writeFileSync(
      join(dir, "sema.config.json"),
      JSON.stringify({ agents: { main: { model: "script:x.json" } }, quotas: { default: { tokensPerDai: 5 } } }),
    );
    const c = capture(dir);
    expect(await main(["usage", "--db", join(dir, "t.db")], c.io)).toBe(2);
    expect(c.err()).toContain("tokensPerDai");
  });
});

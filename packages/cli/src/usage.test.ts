/**
 * USAGE (what `sema help` prints, and docs/reference/cli.md) names every option each command's
 * parser accepts and every environment variable the CLI reads. Each command is called once with
 * `parseArgs` replaced by a probe that records the options it was given and stops the command
 * before it does anything, so a flag added to a parser and not to USAGE fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ParseArgsConfig } from "node:util";
import { describe, expect, it, vi } from "vitest";
import type { CliIo } from "./context.ts";
import { COMMANDS, USAGE } from "./main.ts";

const probe = vi.hoisted(() => ({ active: false, options: undefined as ParseArgsConfig["options"] }));
class Stop extends Error {}

vi.mock("node:util", async (importOriginal) => {
  const util = await importOriginal<typeof import("node:util")>();
  return {
    ...util,
    parseArgs: (config: ParseArgsConfig) => {
      if (!probe.active) return util.parseArgs(config);
      probe.options = config.options;
      throw new Stop();
    },
  };
});

/** Commands that read no options at all (they would run, not parse, when probed). */
const NO_OPTIONS = new Set(["demo"]);
/** Options a parser accepts that do nothing there, so USAGE rightly leaves them out (none today). */
const IGNORED: Record<string, readonly string[]> = {};

/** Each command's lines of USAGE (from its name to the next command), and the notes after them. */
function usageSections(): { commands: Map<string, string>; notes: string } {
  const lines = USAGE.split("\n");
  const start = lines.indexOf("Commands:") + 1;
  const end = lines.indexOf("", start);
  const commands = new Map<string, string>();
  let current: string | undefined;
  for (const line of lines.slice(start, end)) {
    const head = /^ {2}([a-z]+)\b/.exec(line)?.[1];
    if (head !== undefined) current = head;
    if (current !== undefined) commands.set(current, `${commands.get(current) ?? ""}${line}\n`);
  }
  return { commands, notes: lines.slice(end).join("\n") };
}

async function parsedOptions(name: string): Promise<string[]> {
  const load = COMMANDS[name];
  if (load === undefined) throw new Error(`no command ${name}`);
  const command = await load();
  probe.active = true;
  probe.options = undefined;
  try {
    await command([], { env: {}, cwd: "/nonexistent" } as unknown as CliIo);
    throw new Error(`sema ${name} ran without parsing its arguments with parseArgs`);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  } finally {
    probe.active = false;
  }
  return Object.keys(probe.options ?? {});
}

describe("the usage text", () => {
  const { commands, notes } = usageSections();

  it("has a section for every command", () => {
    expect([...commands.keys()]).toEqual(Object.keys(COMMANDS));
  });

  it("names every option each command's parser accepts, in its section or the notes", async () => {
    const missing: string[] = [];
    let probed = 0;
    for (const name of Object.keys(COMMANDS)) {
      if (NO_OPTIONS.has(name)) continue;
      const section = commands.get(name) ?? "";
      const options = await parsedOptions(name);
      expect(options.length, `sema ${name} parses no option`).toBeGreaterThan(0);
      probed++;
      for (const option of options) {
        if (IGNORED[name]?.includes(option)) continue;
        const flag = new RegExp(`--${option}(?![\\w-])`);
        if (!flag.test(section) && !flag.test(notes)) missing.push(`sema ${name} --${option}`);
      }
    }
    expect(probed).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });

  it("names every environment variable the CLI reads", () => {
    const dir = fileURLToPath(new URL(".", import.meta.url));
    const read = new Set<string>();
    for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts") || file.includes("test-support")) continue;
      const text = readFileSync(join(dir, file), "utf8");
      for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\["([A-Z][A-Z0-9_]*)"\])/g))
        read.add(match[1] ?? match[2] ?? "");
    }
    expect([...read]).toEqual(expect.arrayContaining(["SEMA_MODEL", "SEMA_DB", "SEMA_STORE_URL"]));
    for (const name of read) expect(USAGE, name).toMatch(new RegExp(`\\b${name}\\b`));
  });
});

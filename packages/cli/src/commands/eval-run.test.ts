// `sema eval dataset|run|compare|show|list` in process over real SQLite files, on scripted models.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordRun, sema, workspace } from "../test-support/time-travel.ts";

const CASES = [
  '{"id":"portugal","input":"Capital of Portugal?","expected":"Lisbon"}',
  '{"id":"france","input":"Capital of France?","expected":"Paris"}',
  '{"id":"spain","input":"Capital of Spain?","expected":"Madrid"}',
].join("\n");

/** A workspace with the cases file and two scripts: one always answers Lisbon, one Paris. */
function setup() {
  const ws = workspace();
  writeFileSync(join(ws.dir, "cases.jsonl"), CASES);
  return { ...ws, lisbon: ws.script([{ text: "Lisbon" }]), paris: ws.script([{ text: "Paris" }]) };
}

const idOf = (out: string) => /^experiment (\S+)/.exec(out)?.[1] ?? "";

describe("sema eval run", () => {
  it("runs every case, prints a row per case and the means, and exits 1 when a gate fails", async () => {
    const ws = setup();
    const base = [
      "eval",
      "run",
      "cases.jsonl",
      "--model",
      ws.lisbon,
      "--db",
      ws.db,
      "--scorer",
      "exact-match",
      "--scorer",
      "includes",
    ];
    const passed = await sema(ws.dir, [...base, "--gate", "exact-match >= 0.3", "--name", "lisbon"]);
    expect(passed.code).toBe(0);
    const lines = passed.out.split("\n");
    expect(lines[0]).toMatch(/^experiment \S+ \(lisbon\): agent default on script:\S+, 3 cases$/);
    expect(lines[1]).toMatch(/^case\s+exact-match\s+includes\s+status/);
    expect(lines.find((l) => l.startsWith("portugal"))).toMatch(/^portugal\s+1\s+1\s+completed/);
    expect(lines.find((l) => l.startsWith("spain"))).toMatch(/^spain\s+0\s+0\s+completed/);
    expect(lines.find((l) => l.startsWith("mean"))).toMatch(/^mean\s+0\.333\s+0\.333\s+3\/3 completed/);
    expect(passed.err).toBe("...\n");

    const failed = await sema(ws.dir, [...base, "--gate", "exact-match >= 0.9", "--gate", "includes > 0.3"]);
    expect(failed.code).toBe(1);
    expect(failed.out).toContain("gate failed: exact-match mean 0.333 is not >= 0.9\n");
    expect(failed.out).not.toContain("gate failed: includes");

    const json = await sema(ws.dir, [...base, "--json", "--gate", "exact-match >= 0.9"]);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.out) as { means: Record<string, number>; gates: { message: string }[] };
    expect(parsed.means["exact-match"]).toBeCloseTo(1 / 3);
    expect(parsed.gates).toHaveLength(1);
  });

  it("keeps datasets in the store by name and version, made from a file or from recorded tasks", async () => {
    const ws = setup();
    const added = await sema(ws.dir, ["eval", "dataset", "add", "capitals", "cases.jsonl", "--db", ws.db]);
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^Dataset capitals version 1: 3 cases \(sha256 [0-9a-f]{12}…\)\n$/);
    const taskId = await recordRun(ws.dir, "Capital of Portugal?", ws.lisbon, ["--db", ws.db]);
    const fromTask = await sema(ws.dir, ["eval", "dataset", "add", "capitals", "--from-task", taskId, "--db", ws.db]);
    expect(fromTask.out).toMatch(/^Dataset capitals version 2: 1 cases/);
    const listed = await sema(ws.dir, ["eval", "dataset", "list", "--db", ws.db]);
    expect(listed.out).toMatch(/^capitals {2}version 2 {2}1 cases {2}\S+\n$/);
    const exported = await sema(ws.dir, ["eval", "dataset", "export", "capitals", "--version", "2", "--db", ws.db]);
    expect(JSON.parse(exported.out)).toMatchObject({
      input: "Capital of Portugal?",
      expected: "Lisbon",
      metadata: { fromTask: taskId },
    });
    // Run by name: the latest version.
    const ran = await sema(ws.dir, ["eval", "run", "capitals", "--model", ws.lisbon, "--db", ws.db]);
    expect(ran.code).toBe(0);
    expect(ran.out).toMatch(/^mean\s+1\s+1\/1 completed/m);
  });

  it("compares two experiments: the means' change and the cases that regressed, worst first", async () => {
    const ws = setup();
    const run = (script: string, name: string) =>
      sema(ws.dir, ["eval", "run", "cases.jsonl", "--model", script, "--db", ws.db, "--name", name]);
    const a = idOf((await run(ws.lisbon, "lisbon")).out);
    const b = idOf((await run(ws.paris, "paris")).out);
    const compared = await sema(ws.dir, ["eval", "compare", a, b, "--db", ws.db]);
    expect(compared.code).toBe(0);
    expect(compared.out).toContain(`A lisbon (${a})\nB paris (${b})\n`);
    expect(compared.out).toMatch(/^exact-match\s+0\.333\s+0\.333\s+0$/m);
    expect(compared.out).toContain(
      "regressed:\n  portugal exact-match: 1 -> 0 (-1)\nimproved:\n  france exact-match: 0 -> 1 (+1)\n",
    );
    const shown = await sema(ws.dir, ["eval", "show", b, "--db", ws.db]);
    expect(shown.out.split("\n")[0]).toBe(`experiment ${b} (paris): agent default on ${ws.paris}, 3 cases`);
    const listed = await sema(ws.dir, ["eval", "list", "--db", ws.db]);
    expect(listed.out.split("\n").filter((l) => l !== "")).toHaveLength(2);
  });

  it("refuses what does not fit before running anything", async () => {
    const ws = setup();
    writeFileSync(join(ws.dir, "bad.jsonl"), '{"input":"ok"}\n{"input":""}\n');
    const cases: [string[], number, string][] = [
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--scorer", "judge"], 2, "--scorer: judge is not a scorer"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--scorer", "turns"], 2, "turns needs a limit"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--scorer", "turns=-1"], 2, "takes a positive number"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--gate", "exact-match => 1"], 2, "--gate"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--gate", "includes >= 1"], 2, "not a scorer of this run"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--concurrency", "0"], 2, "--concurrency"],
      [["eval", "run", "bad.jsonl", "--model", ws.lisbon], 2, "dataset, line 2: input"],
      [["eval", "run", "missing.jsonl", "--model", ws.lisbon], 2, "cannot read missing.jsonl"],
      [["eval", "run", "nosuch", "--model", ws.lisbon], 1, "no dataset nosuch"],
      [["eval", "run", "cases.jsonl", "--model", ws.lisbon, "--resume", "nosuch"], 1, "no experiment nosuch"],
      [["eval", "frobnicate"], 2, "usage: sema eval"],
      [["eval", "dataset", "add", "x"], 2, "usage: sema eval dataset"],
      [["eval", "compare", "only-one"], 2, "usage: sema eval compare"],
    ];
    for (const [args, code, message] of cases) {
      const ran = await sema(ws.dir, [...args, "--db", ws.db]);
      expect(ran.code, args.join(" ")).toBe(code);
      expect(ran.err, args.join(" ")).toContain(message);
    }
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { describeMachine } from "./machine.ts";
import { loadResults, RESULTS_DIR, saveRequested, saveResults, toMeasureRow, withoutSave } from "./results.ts";
import { formatFigure } from "./results-format.ts";
import { BENCHES, MeasureRow, ResultsFile } from "./results-schema.ts";
import { generateFiles, SECTIONS } from "./results-tables.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

describe("bench/results", () => {
  const folders = readdirSync(RESULTS_DIR).filter(
    (name) => name !== "raw" && statSync(join(RESULTS_DIR, name)).isDirectory(),
  );
  const files = folders.flatMap((folder) =>
    readdirSync(join(RESULTS_DIR, folder)).map((file) => ({ folder, file, path: join(RESULTS_DIR, folder, file) })),
  );

  it("has a folder per benchmark, and only results files in them", () => {
    expect(files.length).toBeGreaterThan(0);
    for (const folder of folders) expect(BENCHES).toContain(folder);
    for (const { folder, file } of files) expect(file, `${folder}/${file}`).toMatch(/\.json$/);
  });

  it.each(files.map((each) => [`${each.folder}/${each.file}`, each] as const))("%s validates", (_, each) => {
    const parsed = ResultsFile.safeParse(JSON.parse(readFileSync(each.path, "utf8")));
    if (!parsed.success) throw new Error(parsed.error.message);
    const results = parsed.data;
    expect(results.bench).toBe(each.folder);
    // The name says when and on which code: <day>[T<hhmm>Z]-<commit>[-n].json.
    const time = results.date.length > 10 ? `T${results.date.slice(11, 13)}${results.date.slice(14, 16)}Z` : "";
    expect(each.file).toMatch(new RegExp(`^${results.date.slice(0, 10)}${time}-${results.commit}(-\\d+)?\\.json$`));
  });

  it("loads every file, oldest first, a baseline before the run of its day", () => {
    const all = loadResults();
    expect(all).toHaveLength(files.length);
    const dates = all.map((loaded) => loaded.results.date);
    expect(dates).toEqual([...dates].sort());
  });

  it("has every generated section of bench/README.md and the docs up to date (npm run bench:tables)", () => {
    for (const { file, current, generated } of generateFiles(REPO)) {
      expect(current, `${file} is stale: run npm run bench:tables`).toBe(generated);
    }
  });

  it("renders every section from the files as they are, and says which run is missing when one is", () => {
    const all = loadResults();
    for (const section of SECTIONS) expect(section.render(all).length).toBeGreaterThan(0);
    const store = SECTIONS.find((section) => section.name === "store");
    expect(() => store?.render([])).toThrow(/bench\/results has no store run/);
  });
});

describe("the results schema", () => {
  const row = { subject: "s", metric: "m", unit: "ms" };

  it("wants a median, or a min and a max, in order", () => {
    expect(MeasureRow.safeParse(row).success).toBe(false);
    expect(MeasureRow.safeParse({ ...row, median: 1 }).success).toBe(true);
    expect(MeasureRow.safeParse({ ...row, min: 1, max: 2 }).success).toBe(true);
    expect(MeasureRow.safeParse({ ...row, min: 2, max: 1 }).success).toBe(false);
    expect(MeasureRow.safeParse({ ...row, median: 3, min: 1, max: 2 }).success).toBe(false);
  });

  it("checks a row's figures against its samples, and takes no unknown keys", () => {
    expect(MeasureRow.safeParse({ ...row, median: 2, min: 1, max: 3, rounds: 3, samples: [3, 1, 2] }).success).toBe(
      true,
    );
    expect(MeasureRow.safeParse({ ...row, median: 2, min: 1, max: 3, rounds: 3, samples: [3, 1, 9] }).success).toBe(
      false,
    );
    expect(MeasureRow.safeParse({ ...row, median: 1, mean: 1 }).success).toBe(false);
  });

  it("rejects a file of an unknown benchmark or schema version", () => {
    const file = {
      schemaVersion: 1,
      bench: "store",
      commit: "abcdef1",
      date: "2026-12-01",
      machine: {},
      command: "npm run bench:store",
      rows: [{ ...row, median: 1 }],
    };
    expect(ResultsFile.safeParse(file).success).toBe(true);
    expect(ResultsFile.safeParse({ ...file, bench: "nope" }).success).toBe(false);
    expect(ResultsFile.safeParse({ ...file, schemaVersion: 2 }).success).toBe(false);
    expect(ResultsFile.safeParse({ ...file, date: "1 Dec 2026" }).success).toBe(false);
  });
});

describe("--save", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("is asked for by the flag or SEMA_BENCH_SAVE=1, and left out of the command recorded", () => {
    expect(saveRequested(["node", "x.ts", "--save"], {})).toBe(true);
    expect(saveRequested(["node", "x.ts"], { SEMA_BENCH_SAVE: "1" })).toBe(true);
    expect(saveRequested(["node", "x.ts"], {})).toBe(false);
    expect(withoutSave(["--rounds", "3", "--save"])).toEqual(["--rounds", "3"]);
  });

  it("writes a file the loader reads back, its rows summarizing the samples", () => {
    dir = mkdtempSync(join(tmpdir(), "sema-results-"));
    const machine = { ...describeMachine(), date: "2026-12-02T10:11:12.345Z" };
    const rows = [
      toMeasureRow({
        subject: "fold",
        metric: "from scratch",
        unit: "ms",
        samples: [3, 1, 2],
        target: { value: 5, higher: false },
      }),
      toMeasureRow({ subject: "fold", metric: "not a number", unit: "ms", samples: [Number.NaN] }),
    ];
    const path = saveResults({ bench: "fold", args: ["--rounds", "3", "--save"], machine, rows }, dir);
    expect(path).toMatch(/fold\/2026-12-02T1011Z-[0-9a-f]{7,}(-dirty)?\.json$/);
    const [loaded] = loadResults(dir);
    expect(loaded?.results).toMatchObject({
      bench: "fold",
      date: "2026-12-02T10:11:12.345Z",
      command: "npm run bench:fold -- --rounds 3",
      rows: [{ subject: "fold", median: 2, min: 1, max: 3, rounds: 3, samples: [3, 1, 2] }],
    });
    // A second run in the same minute gets a name of its own.
    expect(saveResults({ bench: "fold", args: [], machine, rows }, dir)).toMatch(/-2\.json$/);
  });
});

describe("formatFigure", () => {
  it("keeps as many decimals as the size needs, and no trailing zeros", () => {
    expect([0.0183, 0.1, 1.234, 12.34, 123.4, 226152].map(formatFigure)).toEqual([
      "0.018",
      "0.1",
      "1.23",
      "12.3",
      "123",
      "226,152",
    ]);
  });
});

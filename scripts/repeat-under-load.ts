/**
 * `node scripts/repeat-under-load.ts [--runs 20] [--burners N] <test file>…`: run each test file
 * `--runs` times in a row with vitest, beside `--burners` CPU-bound processes (default: one per
 * core), and print one line per run and a tally. It is how a test's claim to be deterministic is
 * checked on a busy machine: a test that decides by the machine's speed fails here. Exit 1 when
 * any run failed. `npm run test:under-load -- <file>` runs it on the pinned Node.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "20" },
    burners: { type: "string" },
  },
});
const runs = Number(values.runs);
const burners = values.burners === undefined ? availableParallelism() : Number(values.burners);
if (positionals.length === 0 || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(burners) || burners < 0) {
  process.stderr.write("usage: node scripts/repeat-under-load.ts [--runs 20] [--burners N] <test file>…\n");
  process.exit(2);
}

const repo = join(import.meta.dirname, "..");
// Each burner spins until killed: a CPU-bound load the scheduler shares with the tests.
const load: ChildProcess[] = Array.from({ length: burners }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopLoad = () => {
  for (const burner of load) burner.kill("SIGKILL");
};
process.on("exit", stopLoad);
// Interrupted: the burners must not outlive the run (they would load the machine for good).
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(signal, () => {
    stopLoad();
    process.exit(130);
  });

const results: { file: string; passed: number; failed: number; failures: string[] }[] = [];
for (const file of positionals) {
  const tally = { file, passed: 0, failed: 0, failures: [] as string[] };
  for (let run = 1; run <= runs; run++) {
    const result = spawnSync(process.execPath, [join(repo, "node_modules/vitest/vitest.mjs"), "run", file], {
      cwd: repo,
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "0" },
    });
    const ok = result.status === 0;
    if (ok) tally.passed++;
    else {
      tally.failed++;
      const failure = `${result.stdout}\n${result.stderr}`
        .split("\n")
        .filter((line) => /FAIL|AssertionError|Error:|seed/i.test(line))
        .slice(0, 8)
        .join("\n");
      tally.failures.push(`run ${run}:\n${failure}`);
    }
    process.stdout.write(`${file} run ${run}/${runs}: ${ok ? "pass" : "FAIL"} (load ${loadavg()[0]?.toFixed(1)})\n`);
  }
  results.push(tally);
}
stopLoad();

for (const { file, passed, failures } of results) {
  process.stdout.write(`${file}: ${passed}/${runs} passed beside ${burners} CPU-bound processes\n`);
  for (const failure of failures) process.stdout.write(`${failure}\n`);
}
process.exitCode = results.every((result) => result.failed === 0) ? 0 : 1;

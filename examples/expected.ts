/**
 * What each example prints when it did what it says: one line per example, matched by the
 * examples' own test (from the workspace) and by the packing test (from the packed tarballs).
 * Each example also asserts its own result and exits non-zero otherwise; each exits 0 when it
 * did what it says, but for those `EXPECTED_EXIT_CODES` names.
 */
const postgres =
  process.env.SEMA_REQUIRE_POSTGRES === "1"
    ? /^6 tasks on one PostgreSQL database/m
    : /^(6 tasks on one PostgreSQL|skipped: no PostgreSQL)/m;

// The useChat page runs in Chromium where there is one (CI requires it, as the console's browser test does).
const browser =
  process.env.SEMA_REQUIRE_BROWSER === "1"
    ? /^useChat in Chromium: steered mid-answer, reloaded, resumed from the log, approved write_note: All done\.$/m
    : /^(useChat in Chromium: steered mid-answer, reloaded, resumed from the log, approved write_note: All done\.|skipped: no Chromium)/m;

/** The line each example prints, by folder. */
export const EXPECTED_LINES: Readonly<Record<string, RegExp>> = {
  "hello-agent": /^2 \+ 3 = 5$/m,
  streaming: /^streamed \d+ events; textStream: Streams arrive piece by piece\.$/m,
  "steer-cross-process": /^steered mid-leg from another process: It is 25 °C in Lisbon\.$/m,
  "approval-cross-process": /^approved in another process, deployed here: Deployed\.$/m,
  hooks: /^denied: .*not allowed here \| final: .*Summary: nothing was deleted\.$/m,
  delegation: /^child \S+ \(budget \{"maxTokens":1600\}\): The researcher says: Mount Everest\.$/m,
  "serve-config": /^served by sema serve, followed over SSE \(\d+ events\): HELLO!$/m,
  "openai-compatible": /^openai-compatible \(2 streamed requests, .*\): 2 \+ 3 = 5$/m,
  "postgres-nodes": postgres,
  "react-chat": browser,
  "replay-regression":
    /^refund\.jsonl replays identical \(3 turns\); with new instructions: diverged at turn 1 \(system\)$/m,
  "evals-ci": /^candidate: 2 of 2 gates failed \(regressed: delivered\), exit code 1$/m,
};

/** The exit code of each example that, doing what it says, does not exit 0. */
export const EXPECTED_EXIT_CODES: Readonly<Record<string, number>> = {
  // A CI step whose gate fails on purpose: the candidate regressed (examples/evals-ci/README.md).
  "evals-ci": 1,
};

/**
 * The stdout of an example's run (`execFile`'s promise, which rejects on a non-zero exit) when it
 * exited with the code `EXPECTED_EXIT_CODES` gives `name` (default 0); any other exit rejects.
 */
export function stdoutOf(name: string, run: Promise<{ stdout: string }>): Promise<string> {
  const expected = EXPECTED_EXIT_CODES[name] ?? 0;
  return run.then(
    ({ stdout }) => {
      if (expected === 0) return stdout;
      throw new Error(`examples/${name} exited 0, not ${expected}; its output:\n${stdout}`);
    },
    (error: { code?: unknown; stdout?: unknown }) => {
      if (expected !== 0 && error.code === expected && typeof error.stdout === "string") return error.stdout;
      throw error;
    },
  );
}

/**
 * What each example prints when it did what it says: one line per example, matched by the
 * examples' own test (from the workspace) and by the packing test (from the packed tarballs).
 * Each example also asserts its own result and exits non-zero otherwise.
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
};

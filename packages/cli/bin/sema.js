#!/usr/bin/env node
// The version gate runs before anything that needs a newer Node is loaded, so an old Node gets one
// clear line instead of a stack trace from a missing built-in (node:sqlite, type stripping …).
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(`sema needs Node.js >= 22.13 (this is ${process.versions.node}).\n`);
  process.exit(2);
}
// A closed pipe (`sema events … | head`) ends the output quietly, not with an EPIPE trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});
// node:sqlite is stable enough for us; its experimental warning would only confuse a person.
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name !== "ExperimentalWarning") process.stderr.write(`${warning.name}: ${warning.message}\n`);
});
// Ctrl-C parks the running leg at once; a second Ctrl-C exits without waiting.
const interrupt = new AbortController();
process.on("SIGINT", () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});
// SIGTERM (a service manager stopping `sema serve`) stops the same graceful way.
process.on("SIGTERM", () => interrupt.abort());
const { main } = await import("../dist/main.js");
// A person at a terminal can be asked (approvals); a pipe or a script cannot.
const prompt = process.stdin.isTTY
  ? async (question) => {
      const { createInterface } = await import("node:readline/promises");
      const lines = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await lines.question(question);
      } finally {
        lines.close();
      }
    }
  : undefined;
process.exitCode = await main(process.argv.slice(2), {
  ...(prompt === undefined ? {} : { prompt }),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  interrupt: interrupt.signal,
});
// Nothing the CLI starts should keep the process alive after the command is done.
process.stdin.destroy();

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
const { main } = await import("../dist/main.js");
process.exitCode = await main(process.argv.slice(2));

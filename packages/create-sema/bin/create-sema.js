#!/usr/bin/env node
// The version gate runs before anything else: on an older Node, one clear line, and no half-made
// app whose `npm start` could not run (its .ts files need Node's type stripping, on from 22.18).
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `create-sema needs Node.js >= 22.18 (this is ${process.versions.node}): the app runs its TypeScript with plain node.\n`,
  );
  process.exit(2);
}
const { main } = await import("../dist/main.js");
process.exitCode = main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() });

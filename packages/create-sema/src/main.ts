/**
 * `npm create sema <folder>` (create-sema): a new app in a new or empty folder, then the commands
 * that run it. Nothing is written when the name is not a valid package name or the folder holds
 * anything, so a mistake never mixes the app's files with someone's own.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { appFiles, ownVersion } from "./app-files.ts";
import { appNameProblem } from "./app-name.ts";

/** The usage text `create-sema --help` prints. */
export const USAGE = `Usage: npm create sema@latest <folder>    (or: npx create-sema <folder>)

Makes a Sema agent app in <folder> (new, or empty; "." for the current folder), named after it:
an agent with a tool in sema.config.ts, its test, npm start, npm run serve.`;

/** Where create-sema writes and prints, and the folder it runs in. */
export interface CreateIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  cwd: string;
}

/** Runs create-sema with `argv` (the arguments after the command); returns the exit code. */
export function main(argv: string[], io: CreateIo): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`create-sema: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help === true) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [folder, ...extra] = parsed.positionals;
  if (folder === undefined || extra.length > 0) {
    io.stderr.write(`create-sema: ${folder === undefined ? "name the folder" : "one folder only"}\n${USAGE}\n`);
    return 2;
  }
  const target = resolve(io.cwd, folder);
  const name = basename(target);
  const problem = appNameProblem(name);
  if (problem !== undefined) {
    io.stderr.write(`create-sema: "${name}" cannot name the app: it ${problem}\n`);
    return 2;
  }
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) {
      io.stderr.write(`create-sema: ${target} is a file, not a folder\n`);
      return 2;
    }
    if (readdirSync(target).length > 0) {
      io.stderr.write(`create-sema: ${target} is not empty: choose a new folder, or empty this one\n`);
      return 2;
    }
  }
  const files = appFiles(name, ownVersion());
  for (const file of files) {
    const path = join(target, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text, { flag: "wx" });
  }
  const where = relative(io.cwd, target);
  io.stdout.write(`Created ${name} in ${target}: an agent with a tool (sema.config.ts), its test, a README.

Next:
${where === "" ? "" : `  cd ${where.includes(" ") ? JSON.stringify(where) : where}\n`}  npm install
  npm test            # the agent's test, on a scripted model
  npm start           # ask the agent (offline; a real model when ANTHROPIC_API_KEY or OPENAI_API_KEY is set)
  npm run serve       # the HTTP API and the web console (sema serve)
`);
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: { help: { type: "boolean", short: "h" } }, allowPositionals: true });
}

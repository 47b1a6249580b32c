import { demo } from "./commands/demo.ts";

const USAGE = `Usage: sema <command>

Commands:
  demo    Show how human input reaches the model: projected, attributed and framed`;

/** Runs one command line; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "demo":
      return demo(rest, process.stdout);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return 0;
    default:
      process.stderr.write(`sema: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
}

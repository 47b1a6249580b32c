import { describe, expect, it } from "vitest";
import { workerExecArgv } from "./worker-script.ts";

describe("workerExecArgv", () => {
  it("keeps the loading options with their values, in either spelling", () => {
    const given = ["--import", "./otel.mjs", "--require=./hook.cjs", "-C", "custom", "--enable-source-maps"];
    expect(workerExecArgv(given, false)).toEqual(given);
  });

  it("leaves out V8 options, which Node refuses in a worker, and the program's options", () => {
    const given = [
      "--max-old-space-size=4096",
      "--expose-gc",
      "--stack-size=2000",
      "--no-memory-protection-keys",
      "--import=./a.mjs",
      "-e",
      "console.log(1)",
      "--test",
      "--watch-path",
      "src",
    ];
    expect(workerExecArgv(given, false)).toEqual(["--import=./a.mjs"]);
  });

  it("adds --conditions=source when running from sources, unless a condition is given", () => {
    expect(workerExecArgv(["--expose-gc"], true)).toEqual(["--conditions=source"]);
    expect(workerExecArgv(["--conditions=development"], true)).toEqual(["--conditions=development"]);
    expect(workerExecArgv(["-C", "x"], true)).toEqual(["-C", "x"]);
  });
});

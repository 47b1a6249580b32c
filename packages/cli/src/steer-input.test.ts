// Keys typed at a terminal become a steer drawn by the renderer; a pipe's lines become steers too.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readSteers, type TypingSurface } from "./steer-input.ts";

function surface(drawsTyping: boolean) {
  const calls: string[] = [];
  const typing: TypingSurface & { drawsTyping: boolean } = {
    drawsTyping,
    beginTyping: () => calls.push("begin"),
    typed: (text) => calls.push(`typed ${JSON.stringify(text)}`),
    endTyping: (steer) => calls.push(steer === undefined ? "abandon" : `steer ${steer}`),
    steerLine: (text) => calls.push(`line ${text}`),
  };
  return { typing, calls };
}

function terminal() {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (raw: boolean) => modes.push(raw),
  });
  return { input, modes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("readSteers", () => {
  it("at a terminal: raw keys, drawn by the surface; Enter sends, Backspace edits, Ctrl-C interrupts", async () => {
    const { input, modes } = terminal();
    const { typing, calls } = surface(true);
    const sent: string[] = [];
    let interrupted = 0;
    const stop = readSteers(
      input,
      typing,
      (text) => sent.push(text),
      () => interrupted++,
    );
    expect(modes).toEqual([true]);
    input.write("ab");
    input.write("\x7f");
    input.write("c\r");
    input.write("x\x7f"); // typed then erased to nothing: abandoned
    input.write("\x03");
    await tick();
    expect(sent).toEqual(["ac"]);
    expect(interrupted).toBe(1);
    expect(calls).toEqual([
      "begin",
      'typed "› "',
      'typed "a"',
      'typed "b"',
      'typed "\\b \\b"',
      'typed "c"',
      "steer ac",
      "begin",
      'typed "› "',
      'typed "x"',
      "abandon",
    ]);
    input.write("half");
    await tick();
    stop();
    // A line left half-typed is erased; the terminal is given back as it was.
    expect(calls.at(-1)).toBe("abandon");
    expect(modes).toEqual([true, false]);
  });

  it("at a terminal whose output is piped away: lines, as the terminal echoes them (no raw mode)", async () => {
    const { input, modes } = terminal();
    const { typing, calls } = surface(false);
    const sent: string[] = [];
    const stop = readSteers(
      input,
      typing,
      (text) => sent.push(text),
      () => {},
    );
    input.write("mind the tests\n  \n");
    await tick();
    stop();
    expect(modes).toEqual([]);
    expect(sent).toEqual(["mind the tests"]);
    expect(calls).toEqual(["line mind the tests"]);
  });
});

/**
 * Lines typed while a leg works become steers. On a terminal the CLI reads keys itself (raw mode,
 * no echo by the terminal), so a line being typed is drawn on a line of its own while the stream
 * waits, and once sent it stays as the person's own attributed line; the stream then resumes on
 * a fresh line. From a pipe (`--stdin-steers`) each line is a steer, shown the same way.
 */
import { createInterface, emitKeypressEvents } from "node:readline";
import type { Readable } from "node:stream";
import { terminalSafe } from "./terminal-safe.ts";

/** Where typing is drawn (a {@link import("./render.ts").Renderer}). */
export interface TypingSurface {
  beginTyping(): void;
  typed(text: string): void;
  endTyping(steer?: string): void;
  steerLine(text: string): void;
}

/** A terminal's stdin: raw mode can be switched. */
type RawInput = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown; isRaw?: boolean };
type Terminal = Readable & { setRawMode: (raw: boolean) => unknown; isRaw?: boolean };

function isTerminal(input: RawInput): input is Terminal {
  return input.isTTY === true && typeof input.setRawMode === "function";
}

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

/** Printable text only: a key's control characters and escape sequences are never echoed. */
const PRINTABLE = /^[^\x00-\x1f\x7f-\x9f]+$/u;

/**
 * Read steers from `input` until the returned stop is called; `send` gets each line (trimmed, not
 * empty). `interrupt` is what Ctrl-C does (raw mode takes it from the terminal's signal).
 */
export function readSteers(
  input: RawInput,
  surface: TypingSurface & { readonly drawsTyping: boolean },
  send: (text: string) => void,
  interrupt: () => void,
): () => void {
  // Keys are read raw only when the typing can be drawn where the person looks (a TTY output);
  // with the output piped away, the terminal's own echo is all they would see.
  if (isTerminal(input) && surface.drawsTyping) return keys(input, surface, send, interrupt);
  const lines = createInterface({ input, terminal: false });
  lines.on("line", (line) => {
    const text = line.trim();
    if (text === "") return;
    surface.steerLine(text);
    send(text);
  });
  return () => lines.close();
}

function keys(
  input: Terminal,
  surface: TypingSurface,
  send: (text: string) => void,
  interrupt: () => void,
): () => void {
  let line = "";
  emitKeypressEvents(input);
  const wasRaw = input.isRaw === true;
  input.setRawMode(true);
  const onKey = (text: string | undefined, key: Key | undefined) => {
    if (key?.ctrl === true && key.name === "c") {
      interrupt();
      return;
    }
    if (key?.name === "return" || key?.name === "enter") {
      const steer = line.trim();
      line = "";
      if (steer === "") {
        surface.endTyping();
        return;
      }
      surface.endTyping(steer);
      send(steer);
      return;
    }
    if (key?.name === "backspace") {
      if (line === "") return;
      line = [...line].slice(0, -1).join("");
      if (line === "") surface.endTyping();
      else surface.typed("\b \b");
      return;
    }
    if (key?.name === "escape") {
      line = "";
      surface.endTyping();
      return;
    }
    if (text === undefined || key?.ctrl === true || key?.meta === true || !PRINTABLE.test(text)) return;
    if (line === "") {
      surface.beginTyping();
      surface.typed("› ");
    }
    line += text;
    surface.typed(terminalSafe(text));
  };
  input.on("keypress", onKey);
  input.resume();
  return () => {
    input.off("keypress", onKey);
    if (line !== "") surface.endTyping();
    input.setRawMode(wasRaw);
    input.pause();
  };
}

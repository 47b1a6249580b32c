/**
 * What a person sees while a task runs: assistant text as it streams, tool calls and results in
 * one compact line each, the inputs the model received with their frames, and a status line with
 * the turn, tokens and elapsed time. Plain lines, no escape codes, when the output is not a TTY.
 * Every piece of text from the task goes through `terminalSafe`: the only escape codes written
 * are the renderer's own styles.
 */
import type { StreamEvent } from "@sema-agent/core";
import { terminalSafe } from "./terminal-safe.ts";

export interface RenderTarget {
  write(text: string): unknown;
  isTTY?: boolean;
}

const DIM = "\x1b[2m";
const BOLD = "\x1b[1m";
const RESET = "\x1b[0m";

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

export class Renderer {
  readonly #out: RenderTarget;
  readonly #tty: boolean;
  readonly #started = Date.now();
  #streaming = false;
  /** The carrier each applied input came on, to tell the objective (already on screen) from the rest. */
  readonly #carriers = new Map<string, string>();
  #tokens = 0;

  constructor(out: RenderTarget, options: { tty?: boolean } = {}) {
    this.#out = out;
    this.#tty = options.tty ?? out.isTTY === true;
  }

  #style(code: string, text: string): string {
    return this.#tty ? `${code}${text}${RESET}` : text;
  }

  /** A line of the task's text, made terminal-safe, then styled with `code` if given. */
  #line(text: string, code?: string): void {
    const safe = terminalSafe(text);
    this.#rawLine(code === undefined ? safe : this.#style(code, safe));
  }

  /** A line already safe to print. */
  #rawLine(text: string): void {
    if (this.#streaming) {
      this.#out.write("\n");
      this.#streaming = false;
    }
    this.#out.write(`${text}\n`);
  }

  /** A sink for `emit`. */
  readonly emit = (event: StreamEvent): void => {
    switch (event.type) {
      case "text_delta":
        if (!this.#tty) return;
        this.#out.write(terminalSafe(event.delta));
        this.#streaming = true;
        return;
      case "model_turn": {
        this.#tokens += event.usage.inputTokens + event.usage.outputTokens;
        if (!this.#tty && event.text !== "") this.#line(`assistant: ${event.text}`);
        const seconds = ((Date.now() - this.#started) / 1000).toFixed(1);
        this.#line(`· turn ${event.sessionSeq} · ${this.#tokens.toLocaleString("en-US")} tokens · ${seconds}s`, DIM);
        return;
      }
      case "tool_call_started":
        this.#line(`→ ${event.name}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`, DIM);
        return;
      case "tool_result": {
        const detail = event.status === "ok" ? `${event.content.length} chars` : oneLine(event.content, 100);
        this.#line(`← ${event.name} ${event.status}: ${detail}`, DIM);
        return;
      }
      case "user_message":
        // The objective is what the person just typed; every other input is shown as the model got it.
        if (this.#carriers.get(event.inputIds[0] ?? "") !== "objective")
          this.#rawLine(indent(terminalSafe(event.content), this.#style(BOLD, "» ")));
        return;
      case "human_input":
        if (event.delivery === "applied") this.#carriers.set(event.inputId, event.carrier);
        if (event.delivery === "received" || event.delivery === "parked")
          this.#line(`» input ${event.delivery} (${event.carrier})`, DIM);
        return;
      case "engine_note":
        this.#line(`! ${event.text}`);
        return;
      case "interrupt_requested":
        this.#line(`! interrupt requested${event.actor === undefined ? "" : ` by ${event.actor.id}`}`);
        return;
      case "task_completed":
        this.#line("✓ completed", BOLD);
        return;
      case "task_failed":
        this.#line(`✗ failed: ${event.error.message}`);
        return;
      case "task_cancelled":
        this.#line("✗ cancelled");
        return;
      case "leg_ended":
        if (event.reason.startsWith("parked:")) this.#line(`‖ parked (${event.reason.slice("parked:".length)})`);
        return;
      default:
        return;
    }
  };

  /** End any streamed line. */
  finish(): void {
    if (this.#streaming) this.#out.write("\n");
    this.#streaming = false;
  }
}

/**
 * What a person sees while a task runs: assistant text as it streams, tool calls and results in
 * one compact line each, the inputs the model received with their frames, and a status line per
 * turn with that turn's tokens and time (a total when the leg ends). On a TTY a dim "thinking…"
 * line stands while the model has not yet sent its first token, and a line typed to steer the
 * task is drawn on a line of its own while the stream waits. Plain lines, no escape codes, when
 * the output is not a TTY. Every piece of text from the task goes through `terminalSafe`: the
 * only escape codes written are the renderer's own styles and its line erase.
 */
import type { StreamEvent } from "@sema-agent/core";
import { terminalSafe } from "./terminal-safe.ts";

export interface RenderTarget {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** How a {@link Renderer} writes and reads the time. */
export interface RendererOptions {
  /** Default: whether the target is a TTY. */
  tty?: boolean;
  /** Milliseconds, for the turns' and the leg's durations. Default `Date.now`. */
  now?: () => number;
}

const DIM = "\x1b[2m";
const BOLD = "\x1b[1m";
const RESET = "\x1b[0m";
/** Back to the start of the line and erase it: how the thinking line and a typed line go away. */
export const ERASE_LINE = "\r\x1b[2K";
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const SPIN_MS = 120;

/** After these the model is called next: the turn's clock starts and, on a TTY, "thinking…". */
const MODEL_NEXT = new Set(["leg_started", "tool_result", "user_message"]);

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

/** " at <frame>" of a stack's first frame (where it was thrown), or nothing without one. */
export function whereThrown(stack: string | undefined): string {
  const frame = stack
    ?.split("\n")
    .map((line) => line.trim())
    .find((line) => line.startsWith("at "));
  return frame === undefined ? "" : ` ${oneLine(frame, 120)}`;
}

const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)}s`;

export class Renderer {
  readonly #out: RenderTarget;
  readonly #tty: boolean;
  readonly #now: () => number;
  readonly #started: number;
  #streaming = false;
  /** The carrier each applied input came on, to tell the objective (already on screen) from the rest. */
  readonly #carriers = new Map<string, string>();
  #turns = 0;
  #tokens = 0;
  /** When the model call of the coming turn began (the event it follows). */
  #turnStarted: number;
  /** The thinking line's timer while it is shown (a TTY only). */
  #spinner: ReturnType<typeof setInterval> | undefined;
  #frame = 0;
  /** While a person types a steer: output waits here, to follow their line. */
  #held: string[] | undefined;
  /** The calls of the last turn still without a result: the model is called once none is left. */
  readonly #pendingCalls = new Set<string>();

  constructor(out: RenderTarget, options: RendererOptions = {}) {
    this.#out = out;
    this.#tty = options.tty ?? out.isTTY === true;
    this.#now = options.now ?? Date.now;
    this.#started = this.#now();
    this.#turnStarted = this.#started;
  }

  #style(code: string, text: string): string {
    return this.#tty ? `${code}${text}${RESET}` : text;
  }

  #write(text: string): void {
    if (this.#held !== undefined) this.#held.push(text);
    else this.#out.write(text);
  }

  /** A line of the task's text, made terminal-safe, then styled with `code` if given. */
  #line(text: string, code?: string): void {
    const safe = terminalSafe(text);
    this.#rawLine(code === undefined ? safe : this.#style(code, safe));
  }

  /** A line already safe to print. */
  #rawLine(text: string): void {
    this.#endStreamedLine();
    this.#write(`${text}\n`);
  }

  #endStreamedLine(): void {
    if (this.#streaming) {
      this.#write("\n");
      this.#streaming = false;
    }
  }

  #startThinking(): void {
    if (!this.#tty || this.#spinner !== undefined || this.#held !== undefined) return;
    this.#endStreamedLine();
    this.#frame = 0;
    this.#drawThinking();
    this.#spinner = setInterval(() => this.#drawThinking(), SPIN_MS);
    // It only draws: it never keeps the process alive.
    (this.#spinner as { unref?: () => void }).unref?.();
  }

  #drawThinking(): void {
    const frame = SPINNER[this.#frame++ % SPINNER.length] ?? "";
    this.#out.write(
      `${ERASE_LINE}${this.#style(DIM, `${frame} thinking… ${seconds(this.#now() - this.#turnStarted)}`)}`,
    );
  }

  #stopThinking(): void {
    if (this.#spinner === undefined) return;
    clearInterval(this.#spinner);
    this.#spinner = undefined;
    this.#out.write(ERASE_LINE);
  }

  /** A sink for `emit`. */
  readonly emit = (event: StreamEvent): void => {
    this.#stopThinking();
    this.#render(event);
    if (event.type === "model_turn") for (const call of event.toolCalls) this.#pendingCalls.add(call.callId);
    if (event.type === "tool_result") this.#pendingCalls.delete(event.callId);
    if (MODEL_NEXT.has(event.type) && this.#pendingCalls.size === 0) {
      this.#turnStarted = this.#now();
      this.#startThinking();
    }
  };

  #render(event: StreamEvent): void {
    switch (event.type) {
      case "text_delta":
        if (!this.#tty) return;
        this.#write(terminalSafe(event.delta));
        this.#streaming = true;
        return;
      case "model_turn": {
        const tokens = event.usage.inputTokens + event.usage.outputTokens;
        this.#turns += 1;
        this.#tokens += tokens;
        if (!this.#tty && event.text !== "") this.#line(`assistant: ${event.text}`);
        // This turn's own tokens and time; the leg's totals come once, when it ends.
        this.#line(
          `· turn ${event.sessionSeq} · ${tokens.toLocaleString("en-US")} tokens · ${seconds(this.#now() - this.#turnStarted)}`,
          DIM,
        );
        return;
      }
      case "tool_call_started":
        this.#line(`→ ${event.name}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`, DIM);
        return;
      case "tool_result": {
        const detail = event.status === "ok" ? `${event.content.length} chars` : oneLine(event.content, 100);
        this.#line(`← ${event.name} ${event.status}: ${detail}`, DIM);
        // What the tool threw, for the developer: its class and where (the model saw the message only).
        if (event.error !== undefined) this.#line(`  ${event.error.name}${whereThrown(event.error.stack)}`, DIM);
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
  }

  /** Whether typed text can be drawn here: the output is a terminal. */
  get drawsTyping(): boolean {
    return this.#tty;
  }

  /**
   * A person started typing a line (a steer): the thinking line goes, a streamed line ends, and
   * output waits until {@link endTyping} so that what they type stays on a line of its own.
   */
  beginTyping(): void {
    if (this.#held !== undefined) return;
    this.#stopThinking();
    this.#endStreamedLine();
    this.#held = [];
  }

  /** Echo what is typed (already safe: the caller passes printable text and its own erases). */
  typed(text: string): void {
    this.#out.write(text);
  }

  /**
   * The typed line is done: with `steer`, it is shown as the person's own line (else it was
   * abandoned and is erased); then the held output follows, the stream resuming on a fresh line.
   */
  endTyping(steer?: string): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    // The typing began on a fresh line: the steer takes it, whatever the held output is.
    this.#out.write(`${ERASE_LINE}${steer === undefined ? "" : `${this.#steerText(steer)}\n`}`);
    for (const text of held) this.#out.write(text);
  }

  /** A steer the person sent, on a line of its own and attributed. */
  steerLine(text: string): void {
    this.#rawLine(this.#steerText(text));
  }

  #steerText(text: string): string {
    return `${this.#style(BOLD, "» you (steer):")} ${terminalSafe(text)}`;
  }

  /** End any streamed line, stop the thinking line, and print the leg's totals. */
  finish(): void {
    this.#stopThinking();
    if (this.#held !== undefined) this.endTyping();
    this.#endStreamedLine();
    if (this.#turns > 0)
      this.#line(
        `· total · ${this.#turns} turn${this.#turns === 1 ? "" : "s"} · ${this.#tokens.toLocaleString("en-US")} tokens · ${seconds(this.#now() - this.#started)}`,
        DIM,
      );
  }
}

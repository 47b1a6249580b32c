// What the renderer writes, event by event: the thinking line on a TTY (and nothing of it
// elsewhere), each turn's own tokens and time with the leg's totals, and a typed steer.
import type { StoredEvent, StreamEvent } from "@sema-agent/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ERASE_LINE, Renderer } from "./render.ts";

const stamp = { taskId: "t", at: "2026-12-01T12:00:00.000Z" };
let seq = 0;
const stored = (event: Record<string, unknown>) => ({ ...stamp, seq: ++seq, v: 1, ...event }) as StoredEvent;
const legStarted = () => stored({ type: "leg_started", legId: "l", trigger: "start" });
const delta = (text: string): StreamEvent => ({ type: "text_delta", taskId: "t", legId: "l", delta: text });
const turn = (sessionSeq: number, tokens: number, toolCalls: { callId: string; name: string }[] = []) =>
  stored({
    type: "model_turn",
    legId: "l",
    sessionSeq,
    text: "",
    toolCalls: toolCalls.map((call) => ({ ...call, input: {} })),
    usage: { inputTokens: tokens - 5, outputTokens: 5 },
    finishReason: toolCalls.length > 0 ? "tool-calls" : "stop",
  });
const result = (callId: string) =>
  stored({ type: "tool_result", callId, name: "list_dir", status: "ok", content: "a\nb", durationMs: 1 });

function target(tty: boolean) {
  let text = "";
  return { out: { write: (t: string) => (text += t), isTTY: tty }, text: () => text };
}

beforeEach(() => vi.useFakeTimers({ now: Date.parse("2026-12-01T12:00:00.000Z") }));
afterEach(() => vi.useRealTimers());

describe("the thinking line", () => {
  it("on a TTY: drawn while the model has sent nothing, erased before its first token, no timer left", () => {
    const t = target(true);
    const renderer = new Renderer(t.out);
    renderer.emit(legStarted());
    expect(t.text()).toContain("thinking… 0.0s");
    vi.advanceTimersByTime(1_560);
    expect(t.text()).toContain("thinking… 1.6s");
    renderer.emit(delta("Hello"));
    // The line is erased and the text starts at its beginning; the spinner is stopped.
    expect(t.text().endsWith(`${ERASE_LINE}Hello`)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    const before = t.text();
    vi.advanceTimersByTime(5_000);
    expect(t.text()).toBe(before);
    renderer.finish();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("on a TTY: back while the next model call waits, not while tools run; gone when the leg ends", () => {
    const t = target(true);
    const renderer = new Renderer(t.out);
    renderer.emit(legStarted());
    renderer.emit(
      turn(1, 20, [
        { callId: "c1", name: "list_dir" },
        { callId: "c2", name: "list_dir" },
      ]),
    );
    expect(vi.getTimerCount()).toBe(0);
    renderer.emit(result("c1"));
    expect(vi.getTimerCount()).toBe(0); // c2 still runs
    const mark = t.text().length;
    renderer.emit(result("c2"));
    expect(t.text().slice(mark)).toContain("thinking…");
    expect(vi.getTimerCount()).toBe(1);
    renderer.emit(stored({ type: "leg_ended", legId: "l", reason: "parked:interrupt" }));
    expect(vi.getTimerCount()).toBe(0);
    expect(t.text().endsWith(`${ERASE_LINE}‖ parked (interrupt)\n`)).toBe(true);
  });

  it("when the output is not a TTY: never drawn, no escape code, no timer", () => {
    const t = target(false);
    const renderer = new Renderer(t.out);
    renderer.emit(legStarted());
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(3_000);
    renderer.emit(turn(1, 20));
    renderer.finish();
    expect(t.text()).not.toContain("thinking");
    expect(t.text()).not.toContain("\x1b");
    expect(t.text()).not.toContain("\r");
  });

  it("finish stops a spinner still drawn (a leg that threw)", () => {
    const renderer = new Renderer(target(true).out);
    renderer.emit(legStarted());
    expect(vi.getTimerCount()).toBe(1);
    renderer.finish();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the turn lines", () => {
  it("each turn shows its own tokens and time; the leg's totals come at the end", () => {
    const t = target(false);
    const renderer = new Renderer(t.out);
    renderer.emit(legStarted());
    vi.advanceTimersByTime(2_000);
    renderer.emit(turn(1, 20, [{ callId: "c1", name: "list_dir" }]));
    vi.advanceTimersByTime(500); // the tool runs: not the model's time
    renderer.emit(result("c1"));
    vi.advanceTimersByTime(1_200);
    renderer.emit(turn(2, 30));
    renderer.finish();
    expect(t.text().split("\n")).toEqual([
      "· turn 1 · 20 tokens · 2.0s",
      "← list_dir ok: 3 chars",
      "· turn 2 · 30 tokens · 1.2s",
      "· total · 2 turns · 50 tokens · 3.7s",
      "",
    ]);
  });
});

describe("a typed steer", () => {
  it("mid-stream: the streamed line ends, the typing stands alone, the stream resumes on a fresh line", () => {
    const t = target(true);
    const renderer = new Renderer(t.out);
    renderer.emit(delta("Reading the fi"));
    renderer.beginTyping();
    renderer.typed("› mind");
    renderer.emit(delta("les now"));
    expect(t.text()).not.toContain("les now"); // held while the person types
    renderer.endTyping("mind the tests");
    renderer.emit(delta("."));
    renderer.finish();
    const lines = t.text().split("\n");
    expect(lines[0]).toBe("Reading the fi");
    expect(lines[1]).toBe(`› mind${ERASE_LINE}\x1b[1m» you (steer):\x1b[0m mind the tests`);
    expect(lines[2]).toBe("les now.");
  });

  it("abandoned: the typed line is erased and the held output follows", () => {
    const t = target(true);
    const renderer = new Renderer(t.out);
    renderer.beginTyping();
    renderer.typed("› x");
    renderer.emit(delta("text"));
    renderer.endTyping();
    expect(t.text()).toBe(`› x${ERASE_LINE}text`);
  });
});

import { describe, expect, it } from "vitest";
import { concatFrames, textFrame } from "./sse-frame.ts";

const decoder = new TextDecoder();

describe("concatFrames", () => {
  it("joins frames in order, and hands a lone frame over as it is", () => {
    const a = textFrame("a\n\n");
    const b = textFrame("bb\n\n");
    expect(decoder.decode(concatFrames([a, b, a], 10))).toBe("a\n\nbb\n\na\n\n");
    expect(concatFrames([b], 4)).toBe(b);
  });

  it("shares one chunk between streams that queued the same frames, and only those", () => {
    const a = textFrame("a\n\n");
    const b = textFrame("b\n\n");
    const first = concatFrames([a, b], 6);
    // The next stream, level with the first: the same frames, the same chunk (no copy).
    expect(concatFrames([a, b], 6)).toBe(first);
    // Equal bytes in other objects, another order, or one frame more: a chunk of their own.
    const other = textFrame("b\n\n");
    const equalBytes = concatFrames([a, other], 6);
    expect(equalBytes).not.toBe(first);
    expect(decoder.decode(equalBytes)).toBe("a\n\nb\n\n");
    expect(decoder.decode(concatFrames([b, a], 6))).toBe("b\n\na\n\n");
    expect(decoder.decode(concatFrames([a, b, b], 9))).toBe("a\n\nb\n\nb\n\n");
    // An array the caller changes afterwards does not change what is shared.
    const frames = [a, b];
    const made = concatFrames(frames, 6);
    frames[1] = a;
    expect(decoder.decode(concatFrames(frames, 6))).toBe("a\n\na\n\n");
    expect(decoder.decode(made)).toBe("a\n\nb\n\n");
  });
});

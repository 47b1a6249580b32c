import { describe, expect, it } from "vitest";
import { assignToolNames, fullToolName, sanitizeToolName, TOOL_NAME } from "./tool-names.ts";

describe("sanitizeToolName", () => {
  it("keeps valid names and replaces everything providers refuse", () => {
    expect(sanitizeToolName("get-sum_2")).toBe("get-sum_2");
    expect(sanitizeToolName("files/read.text")).toBe("files_read_text");
    expect(sanitizeToolName("héllo wörld")).toBe("h_llo_w_rld");
    expect(sanitizeToolName("")).toBe("_");
    expect(sanitizeToolName("x".repeat(100))).toBe("x".repeat(64));
  });
});

describe("assignToolNames", () => {
  it("prefixes with a double underscore", () => {
    expect(assignToolNames([fullToolName("echo", "everything"), fullToolName("echo", undefined)])).toEqual([
      "everything__echo",
      "echo",
    ]);
  });

  it("lets a verbatim name keep its name and hashes the names that only collided by sanitizing", () => {
    const names = assignToolNames(["a.b", "a_b", "a b"]);
    expect(names[1]).toBe("a_b");
    expect(names[0]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(3);
  });

  it("gives the same tool the same name whatever order the server lists it in", () => {
    const forward = assignToolNames(["a.b", "a b", "c"]);
    const backward = assignToolNames(["c", "a b", "a.b"]);
    expect(backward).toEqual([forward[2], forward[1], forward[0]]);
  });

  it("hashes every member when no member of a collision is verbatim", () => {
    const names = assignToolNames(["x.y", "x/y"]);
    expect(names.every((n) => /^x_y_[0-9a-f]{8}$/.test(n))).toBe(true);
    expect(names[0]).not.toBe(names[1]);
  });

  it("keeps names within 64 characters when long names collide after truncation", () => {
    const long = "t".repeat(70);
    const names = assignToolNames([`${long}1`, `${long}2`, `${"t".repeat(64)}`]);
    expect(names[2]).toBe("t".repeat(64));
    for (const name of names) expect(name).toMatch(TOOL_NAME);
    expect(new Set(names).size).toBe(3);
  });

  it("tells apart a name the server listed twice", () => {
    const names = assignToolNames(["dup", "dup"]);
    expect(names[0]).toBe("dup");
    expect(names[1]).toMatch(/^dup_[0-9a-f]{8}$/);
  });
});

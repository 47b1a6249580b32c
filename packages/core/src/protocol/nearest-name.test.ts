// "Did you mean": the nearest known name, only when it is close.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistance, nearestName } from "./nearest-name.ts";

const word = fc.stringMatching(/^[a-zA-Z]{0,12}$/);

describe("editDistance", () => {
  it("is 0 exactly for equal strings, symmetric, and at most the longer length", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const d = editDistance(a, b);
        expect(d === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(d);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it("counts one edit for a swap of neighbours, a letter dropped, added or changed", () => {
    expect(editDistance("modle", "model")).toBe(1);
    expect(editDistance("maxTurn", "maxTurns")).toBe(1);
    expect(editDistance("concurency", "concurrency")).toBe(1);
    expect(editDistance("principle", "principal")).toBe(2);
  });
});

describe("nearestName", () => {
  const known = ["model", "instructions", "tools", "approve", "maxTurns", "maxTokens", "maxCostUsd", "approvers"];

  it("finds the key meant through one edit of a key of 4 letters or more, and never offers the name given", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...known),
        fc.nat(),
        fc.constantFrom("drop", "swap", "change", "add"),
        (name, at, edit) => {
          const i = at % (name.length - 1);
          const typo =
            edit === "drop"
              ? name.slice(0, i) + name.slice(i + 1)
              : edit === "swap"
                ? name.slice(0, i) + (name[i + 1] ?? "") + (name[i] ?? "") + name.slice(i + 2)
                : edit === "change"
                  ? `${name.slice(0, i)}${name[i] === "q" ? "z" : "q"}${name.slice(i + 1)}`
                  : `${name.slice(0, i)}q${name.slice(i)}`;
          fc.pre(typo !== name && typo.length >= 4);
          const near = nearestName(typo, known);
          expect(near).toBeDefined();
          expect(near).not.toBe(typo);
          // The nearest: the name itself, or another just as close.
          expect(editDistance(typo.toLowerCase(), (near ?? "").toLowerCase())).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("offers nothing far off, and nothing for a name that is known", () => {
    fc.assert(
      fc.property(word, (given) => {
        const near = nearestName(given, known);
        if (near === undefined) return;
        const d = editDistance(given.toLowerCase(), near.toLowerCase());
        expect(d).toBeLessThanOrEqual(2);
        expect(d * 3).toBeLessThan(given.length);
        expect(near).not.toBe(given);
      }),
    );
    expect(nearestName("model", known)).toBeUndefined();
    expect(nearestName("colour", known)).toBeUndefined();
    expect(nearestName("mdl", known)).toBeUndefined();
    expect(nearestName("MAXTURNS", known)).toBe("maxTurns");
  });
});

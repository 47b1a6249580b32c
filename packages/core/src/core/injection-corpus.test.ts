// Every attack string of the BIPIA corpus (fixtures/injection, MIT licensed, its licence beside it)
// as an actor id, a fence's `from` value and a body: the frames must hold whatever the text says.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectHumanInput } from "./human-input-projection.ts";
import { sanitizeHumanText } from "./human-text.ts";
import { attrEscape, inlineUntrusted } from "./neutralizers.ts";
import { isFrameHeadLine } from "./reserved-markup.ts";
import { delimitUntrusted, formatHookFeedback } from "./trust-framing.ts";

const CORPUS_DIR = new URL("../../fixtures/injection/", import.meta.url).pathname;
const LABEL = /^\[from "[^"\n]*"\]( \(unverified\))?$/;

function loadAttacks(): string[] {
  if (!existsSync(CORPUS_DIR)) throw new Error(`injection corpus not found at ${CORPUS_DIR}`);
  const attacks: string[] = [];
  for (const file of readdirSync(CORPUS_DIR).filter((name) => name.endsWith(".json"))) {
    const categories = JSON.parse(readFileSync(join(CORPUS_DIR, file), "utf8")) as Record<string, string[]>;
    for (const list of Object.values(categories)) attacks.push(...list);
  }
  return attacks;
}

const attacks = loadAttacks();
// Each attack also arrives pre-wrapped in the frames it might try to break out of.
const variants = attacks.flatMap((a) => [
  a,
  `"]\n${a}`,
  `</system-reminder>\n${a}\n<system-reminder>`,
  `</untrusted-0000000000000000>${a}`,
  `${a}"] (unverified)`,
]);

describe("injection corpus", () => {
  it("holds the whole corpus", () => {
    expect(attacks.length).toBeGreaterThan(100);
  });

  it("as an actor id: the label stays one well-formed line and the text follows untouched", () => {
    for (const id of variants) {
      for (const verified of [true, false]) {
        const out = projectHumanInput({ text: "body", source: "user", actor: { id, verified } });
        const [label, ...rest] = out.split("\n");
        expect(label).toMatch(LABEL);
        expect(label?.endsWith(" (unverified)")).toBe(!verified);
        expect(rest.join("\n")).toBe("body");
      }
    }
  });

  it("as a fence's from value: the header stays one line and cannot close the fence", () => {
    for (const from of variants) {
      const out = delimitUntrusted("body", { from });
      const lines = out.split("\n");
      expect(lines).toHaveLength(3);
      expect(lines[0]).toContain(`from="${attrEscape(inlineUntrusted(from, 64))}"`);
      expect(lines[1]).toBe("body");
      expect(lines[2]).toMatch(/^<\/untrusted-[0-9a-f]{16}>$/);
    }
  });

  it("as a body: the fence and the reminder each close exactly once, last, with the body verbatim", () => {
    for (const body of variants) {
      const fenced = delimitUntrusted(body, { from: "attacker" });
      const tag = /^<(untrusted-[0-9a-f]{16}(?:-\d+)?) /.exec(fenced)?.[1] ?? "missing";
      expect(fenced.endsWith(`\n${body}\n</${tag}>`)).toBe(true);
      expect(fenced.split(`</${tag}>`)).toHaveLength(2);

      const reminder = formatHookFeedback(
        projectHumanInput({ text: body, source: "supervisor", actor: { id: body, verified: false } }),
      );
      expect(reminder.match(/<\s*\/?\s*system-reminder/gi)).toEqual(["<system-reminder", "</system-reminder"]);
      expect(reminder.endsWith("\n</system-reminder>")).toBe(true);
    }
  });

  it("as a body on every lane but the supervisor's: no working frame survives the ingress", () => {
    for (const text of variants) {
      for (const source of ["user", "external", "operator", "system"] as const) {
        const lines = sanitizeHumanText(text, source).split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/);
        for (const line of lines) {
          expect(isFrameHeadLine(line), line).toBe(false);
          expect(line, line).not.toMatch(/<\s*\/?\s*(system-reminder|untrusted)/i);
        }
      }
    }
  });
});

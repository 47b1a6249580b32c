/**
 * The console's Markdown (`console/markdown.js`): the common forms of a model's answer, and for
 * any text at all, a tree of allowlisted tags whose links are safe, whose text is the input's and
 * which takes time linear in the input (no pathological backtracking on what a model writes).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MD_TAGS, type MdNode, parseMarkdown, SAFE_SCHEMES, safeHref, textOf } from "../../console/markdown.js";

type Element = Exclude<MdNode, string>;

function* elements(nodes: readonly MdNode[]): Generator<Element> {
  for (const item of nodes)
    if (typeof item !== "string") {
      yield item;
      yield* elements(item.children);
    }
}

describe("parseMarkdown", () => {
  it("renders the forms a model writes", () => {
    expect(parseMarkdown("# Plan\n\nSome **bold**, *it*, `code` and ~~old~~.")).toEqual([
      { tag: "h3", children: ["Plan"] },
      {
        tag: "p",
        children: [
          "Some ",
          { tag: "strong", children: ["bold"] },
          ", ",
          { tag: "em", children: ["it"] },
          ", ",
          { tag: "code", children: ["code"] },
          " and ",
          { tag: "del", children: ["old"] },
          ".",
        ],
      },
    ]);
    expect(parseMarkdown("- one\n- two\n\n3. three\n4. four")).toEqual([
      {
        tag: "ul",
        children: [
          { tag: "li", children: ["one"] },
          { tag: "li", children: ["two"] },
        ],
      },
      {
        tag: "ol",
        attrs: { start: "3" },
        children: [
          { tag: "li", children: ["three"] },
          { tag: "li", children: ["four"] },
        ],
      },
    ]);
    expect(parseMarkdown("```ts\nconst a = <b>1</b>;\n```")).toEqual([
      { tag: "pre", children: [{ tag: "code", attrs: { "data-lang": "ts" }, children: ["const a = <b>1</b>;"] }] },
    ]);
    expect(parseMarkdown("| a | b |\n|---|---|\n| 1 | 2 |")).toEqual([
      {
        tag: "table",
        children: [
          {
            tag: "thead",
            children: [
              {
                tag: "tr",
                children: [
                  { tag: "th", children: ["a"] },
                  { tag: "th", children: ["b"] },
                ],
              },
            ],
          },
          {
            tag: "tbody",
            children: [
              {
                tag: "tr",
                children: [
                  { tag: "td", children: ["1"] },
                  { tag: "td", children: ["2"] },
                ],
              },
            ],
          },
        ],
      },
    ]);
    expect(parseMarkdown("> quoted\n\n---")).toEqual([
      { tag: "blockquote", children: [{ tag: "p", children: ["quoted"] }] },
      { tag: "hr", children: [] },
    ]);
  });

  it("keeps HTML as text and only safe links, which open without a referrer or an opener", () => {
    expect(parseMarkdown('<script>alert(1)</script> <img src=x onerror="y">')).toEqual([
      { tag: "p", children: ['<script>alert(1)</script> <img src=x onerror="y">'] },
    ]);
    const rel = "noopener noreferrer";
    expect(parseMarkdown("[docs](https://example.com/a) [bad](javascript:alert(1)) see https://x.example/p.")).toEqual([
      {
        tag: "p",
        children: [
          { tag: "a", attrs: { href: "https://example.com/a", rel, target: "_blank" }, children: ["docs"] },
          " ",
          { tag: "span", children: ["bad"] },
          ") see ",
          {
            tag: "a",
            attrs: { href: "https://x.example/p", rel, target: "_blank" },
            children: ["https://x.example/p"],
          },
          ".",
        ],
      },
    ]);
    // An image is a link to it, never loaded.
    expect(parseMarkdown("![chart](https://x.example/c.png)")).toEqual([
      {
        tag: "p",
        children: [
          { tag: "a", attrs: { href: "https://x.example/c.png", rel, target: "_blank" }, children: ["image: chart"] },
        ],
      },
    ]);
    expect(safeHref("data:text/html,<b>")).toBeUndefined();
    expect(safeHref("mailto:a@example.com")).toBe("mailto:a@example.com");
  });

  it("reads snake_case as a word, and a lone star as a star", () => {
    expect(parseMarkdown("call read_file_now and 2 * 3")).toEqual([
      { tag: "p", children: ["call read_file_now and 2 * 3"] },
    ]);
  });

  const markdownish = fc.string({
    unit: fc.constantFrom(
      ..."ab <>/*_`~[]()!#>-+|\\:.h1 \n",
      "http://",
      "https://",
      "javascript:",
      "mailto:",
      "```",
      "- ",
      "1. ",
      "<script>",
    ),
    maxLength: 120,
  });

  it("produces only allowlisted tags, safe links and the input's own characters, for any text", () => {
    fc.assert(
      fc.property(fc.oneof(markdownish, fc.string()), (text) => {
        const tree = parseMarkdown(text);
        for (const element of elements(tree)) {
          expect(MD_TAGS.has(element.tag), element.tag).toBe(true);
          for (const key of Object.keys(element.attrs ?? {}))
            expect(["href", "rel", "target", "start", "data-lang"]).toContain(key);
          if (element.tag === "a") {
            const href = element.attrs?.href ?? "";
            expect(SAFE_SCHEMES.has(new URL(href).protocol)).toBe(true);
            expect(element.attrs?.rel).toBe("noopener noreferrer");
          }
        }
        // Nothing is made up: every character shown is one of the input's (an image's label aside).
        const input = new Set(text);
        for (const char of textOf(tree).replaceAll("image: ", "").replaceAll("image", ""))
          expect(input.has(char) || char === " ", char).toBe(true);
      }),
    );
  });

  it("shows plain text as it is", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 ,;'"?]{1,80}$/), (text) => {
        fc.pre(text.trim() !== "");
        expect(textOf(parseMarkdown(text))).toBe(text.trim());
      }),
    );
  });

  it("reads long runs of markers that never close as the text they are", () => {
    // What makes a naive scanner quadratic: each opening looks for its closing to the end.
    for (const unit of ["*a ", "_a ", "[a", "**a ", "~~a ", "![a", "<a "]) {
      const text = unit.repeat(10_000);
      expect(textOf(parseMarkdown(text)), unit).toBe(text.trim());
    }
  });
});

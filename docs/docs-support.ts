/** What the docs tests share: where the site's sources and its build are, and every page. */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const DOCS_DIR = fileURLToPath(new URL(".", import.meta.url));
export const REPO_DIR = join(DOCS_DIR, "..");
export const DIST_DIR = join(DOCS_DIR, ".vitepress", "dist");

/** Every Markdown page of the site, relative to docs/ (the build folder and its cache aside). */
export function markdownPages(dir: string = DOCS_DIR): string[] {
  const pages: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) pages.push(...markdownPages(path));
    else if (entry.name.endsWith(".md")) pages.push(relative(DOCS_DIR, path));
  }
  return pages.sort();
}

/** The HTML file VitePress writes for a page: `guide/stores.md` becomes `guide/stores.html`. */
export function htmlFor(page: string): string {
  return page.replace(/\.md$/, ".html");
}

/** The ```ts blocks of a Markdown text, each without the indentation of its fence. */
export function tsBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/^([ \t]*)```ts\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1] ?? "";
    const body = match[2] ?? "";
    blocks.push(
      body
        .split("\n")
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
        .join("\n"),
    );
  }
  return blocks;
}

/**
 * A block copied from a file, so a reader on GitHub sees it (VitePress's `<<<` includes show there
 * as a bare line): `<!-- snippet: path -->` (relative to docs/), a blank line, then the fenced
 * block, whose text must equal the file's (docs/snippets.test.ts).
 */
export interface SnippetBlock {
  file: string;
  lang: string;
  body: string;
}

const SNIPPET = /^<!-- snippet: (\S+) -->\n\n```(\w+)\n([\s\S]*?)^```$/gm;

/** The blocks of a Markdown text copied from files. */
export function snippetBlocks(markdown: string): SnippetBlock[] {
  return [...markdown.matchAll(SNIPPET)].map((match) => ({
    file: match[1] ?? "",
    lang: match[2] ?? "",
    body: match[3] ?? "",
  }));
}

/** The Markdown text without its copied blocks (each file is checked where it lives). */
export function withoutSnippets(markdown: string): string {
  return markdown.replace(SNIPPET, "");
}

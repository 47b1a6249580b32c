/** `search_text`: lines matching a literal string or a regular expression, across a tree of files. */
import { readFile, stat } from "node:fs/promises";
import { defineTool } from "@sema-agent/core";
import { z } from "zod";
import { confinePath } from "./confine-path.ts";
import { formatBytes, isMissing, looksBinary } from "./fs-helpers.ts";
import { SKIPPED_DIRECTORIES, walkTree } from "./walk-tree.ts";

/** The most matches one call returns: past this the search is too broad to be useful. */
export const SEARCH_MAX_MATCHES = 200;

/** Files larger than this are skipped (and counted): they are logs or data, not what a text search is for. */
export const SEARCH_MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A matching line is cut to this many characters, so one minified line cannot fill the result. */
const MAX_LINE_CHARS = 300;

const inputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe("The text to look for: a literal string, or a JavaScript regular expression when regex is true."),
  path: z
    .string()
    .default(".")
    .describe(
      'The directory (searched recursively) or file to search, relative to the working directory (default ".").',
    ),
  regex: z
    .boolean()
    .default(false)
    .describe("Treat pattern as a JavaScript regular expression (without slashes or flags) (default false)."),
  caseSensitive: z.boolean().default(true).describe("Match letter case exactly (default true)."),
});

type SearchTextInput = z.infer<typeof inputSchema>;

/** Creates the `search_text` tool, confined to `root`. */
export function createSearchTextTool(root: string) {
  const skipped = [...SKIPPED_DIRECTORIES].join(" and ");
  return defineTool({
    name: "search_text",
    description:
      "Search the text files under a directory (or one file) inside the working directory for lines containing " +
      'a string or matching a regular expression. Returns one match per line as "file:line: text", the file ' +
      `relative to the working directory and lines counted from 1 (use them with read_file's offset). Skips ` +
      `binary files, files over ${formatBytes(SEARCH_MAX_FILE_BYTES)}, ${skipped}, and symbolic links. Returns ` +
      `at most ${SEARCH_MAX_MATCHES} matches.`,
    inputSchema,
    readOnly: true,
    idempotent: true,
    // Matching lines are file contents: third-party text.
    untrustedOutput: true,
    execute: (input, context) => searchText(root, input, context.signal),
  });
}

async function searchText(root: string, input: SearchTextInput, signal: AbortSignal): Promise<string> {
  const matcher = compileMatcher(input);
  const target = await confinePath(root, input.path, signal);
  const name = target.display;
  const stats = await stat(target.absolute).catch((error: unknown) => {
    throw isMissing(error) ? new Error(`${name} does not exist`) : error;
  });

  const matches: string[] = [];
  let binary = 0;
  let large = 0;
  let stopped = false;

  /** Searches one file; returns false once the match cap is reached. */
  const searchFile = async (absolute: string, shownAs: string, size: number): Promise<boolean> => {
    if (size > SEARCH_MAX_FILE_BYTES) {
      large += 1;
      return true;
    }
    const content = await readFile(absolute, { signal });
    if (looksBinary(content)) {
      binary += 1;
      return true;
    }
    // Split on CRLF too, so that `$` matches at the end of a Windows-style line.
    const lines = content.toString("utf8").split(/\r?\n/);
    for (const [index, line] of lines.entries()) {
      if (!matcher.test(line)) continue;
      if (matches.length === SEARCH_MAX_MATCHES) {
        stopped = true;
        return false;
      }
      matches.push(`${shownAs}:${index + 1}: ${clip(line)}`);
    }
    return true;
  };

  if (stats.isFile()) {
    await searchFile(target.absolute, name, stats.size);
  } else if (stats.isDirectory()) {
    const prefix = name === "." ? "" : `${name}/`;
    for await (const entry of walkTree(target.absolute, { recursive: true, signal })) {
      if (entry.kind !== "file") continue;
      signal.throwIfAborted();
      // A file may vanish or turn unreadable mid-walk: skip it rather than lose the whole search.
      const fileStats = await stat(entry.absolute).catch(() => undefined);
      if (fileStats === undefined || !fileStats.isFile()) continue;
      const searched = await searchFile(entry.absolute, prefix + entry.relative, fileStats.size).catch(
        (error: unknown) => {
          if (signal.aborted) throw error;
          return true;
        },
      );
      if (!searched) break;
    }
  } else {
    throw new Error(`${name} is neither a file nor a directory`);
  }

  const notes: string[] = [];
  if (stopped) notes.push(`[stopped at ${SEARCH_MAX_MATCHES} matches: narrow the pattern or the path]`);
  const skips: string[] = [];
  if (binary > 0) skips.push(`${binary} binary file${binary === 1 ? "" : "s"}`);
  if (large > 0) skips.push(`${large} file${large === 1 ? "" : "s"} over ${formatBytes(SEARCH_MAX_FILE_BYTES)}`);
  if (skips.length > 0) notes.push(`[skipped ${skips.join(" and ")}]`);
  if (matches.length === 0) {
    const what = input.regex ? `/${input.pattern}/` : JSON.stringify(input.pattern);
    return [`No matches for ${what} in ${name}`, ...notes].join("\n");
  }
  return [...matches, ...notes].join("\n");
}

/** One regular expression for both modes; a literal pattern is escaped first. */
function compileMatcher(input: SearchTextInput): RegExp {
  const flags = input.caseSensitive ? "" : "i";
  if (!input.regex) return new RegExp(escapeRegExp(input.pattern), flags);
  try {
    // No `g` flag: `test` then keeps no state between lines.
    return new RegExp(input.pattern, flags);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`invalid regular expression ${JSON.stringify(input.pattern)}: ${reason}`);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function clip(line: string): string {
  return line.length <= MAX_LINE_CHARS ? line : `${line.slice(0, MAX_LINE_CHARS)}…`;
}

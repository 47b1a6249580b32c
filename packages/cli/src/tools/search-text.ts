/** `search_text`: lines matching a literal string or a regular expression, across a tree of files. */
import { constants } from "node:fs";
import { defineTool, type ToolContext } from "@sema-agent/core";
import { z } from "zod";
import { confinePath } from "./confine-path.ts";
import { formatBytes, isMissing, looksBinary } from "./fs-helpers.ts";
import { type LineMatch, ThreadedMatcher } from "./regex-worker.ts";
import { hardLinkError, type OpenedDirectory, openDirectoryAt, withParent } from "./safe-open.ts";
import { type FileToolsOptions, type FileToolsRoot, rootFor } from "./tool-root.ts";
import { SKIPPED_DIRECTORIES, walkTree } from "./walk-tree.ts";

/** How long a regular-expression search may match, all files together, unless configured. */
export const SEARCH_REGEX_TIMEOUT_MS = 10_000;

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
export function createSearchTextTool(root: FileToolsRoot, options: FileToolsOptions = {}) {
  const skipped = [...SKIPPED_DIRECTORIES].join(" and ");
  return defineTool({
    name: "search_text",
    description:
      "Search the text files under a directory (or one file) inside the working directory for lines containing " +
      'a string or matching a regular expression. Returns one match per line as "file:line: text", the file ' +
      `relative to the working directory and lines counted from 1 (use them with read_file's offset). Skips ` +
      `binary files, files over ${formatBytes(SEARCH_MAX_FILE_BYTES)}, ${skipped}, and symbolic links. Returns ` +
      `at most ${SEARCH_MAX_MATCHES} matches. A regular expression that runs longer than ` +
      `${(options.regexTimeoutMs ?? SEARCH_REGEX_TIMEOUT_MS) / 1000} s is stopped with an error.`,
    inputSchema,
    readOnly: true,
    idempotent: true,
    effects: "none",
    // Matching lines are file contents: third-party text.
    untrustedOutput: true,
    execute: (input, context) => searchText(root, options, input, context),
  });
}

/** Finds the matching lines of one text: on a worker thread for a regex, inline for a literal. */
type LineSearch = (text: string, limit: number) => Promise<LineMatch[]>;

async function searchText(
  rootSpec: FileToolsRoot,
  options: FileToolsOptions,
  input: SearchTextInput,
  context: ToolContext,
): Promise<string> {
  const { signal } = context;
  const matcher = compileMatcher(input);
  const target = await confinePath(await rootFor(rootSpec, context), input.path, signal);
  await options.beforeOpen?.(target);
  // A literal pattern cannot backtrack: matched here. A model's regex runs where it can be stopped.
  let threaded: ThreadedMatcher | undefined;
  const search: LineSearch = input.regex
    ? (text, limit) => {
        threaded ??= new ThreadedMatcher(matcher.source, matcher.flags, {
          timeoutMs: options.regexTimeoutMs ?? SEARCH_REGEX_TIMEOUT_MS,
          signal,
        });
        return threaded.match(text, limit);
      }
    : async (text, limit) => matchInline(matcher, text, limit);
  try {
    return await searchTarget(target.root, target.display, input, options, signal, search);
  } finally {
    threaded?.close();
  }
}

function matchInline(matcher: RegExp, text: string, limit: number): LineMatch[] {
  const found: LineMatch[] = [];
  // Split on CRLF too, so that `$` matches at the end of a Windows-style line.
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length && found.length < limit; index++) {
    const line = lines[index] ?? "";
    if (matcher.test(line)) found.push([index, line]);
  }
  return found;
}

async function searchTarget(
  root: string,
  name: string,
  input: SearchTextInput,
  options: FileToolsOptions,
  signal: AbortSignal,
  search: LineSearch,
): Promise<string> {
  const matches: string[] = [];
  let binary = 0;
  let large = 0;
  let linked = 0;
  let stopped = false;
  // The matcher itself failed (a regex out of time): that ends the search, it is no file's fault.
  let searchFailed = false;

  /** Searches one file of `parent`; returns false once the match cap is reached. */
  const searchFile = async (
    parent: OpenedDirectory,
    file: string,
    shownAs: string,
    single: boolean,
  ): Promise<boolean> => {
    const { handle, stats } = await parent.openFile(file, constants.O_RDONLY);
    let content: Buffer;
    try {
      if (!stats.isFile()) {
        if (single) throw new Error(`${shownAs} is neither a file nor a directory`);
        return true;
      }
      if (stats.nlink > 1 && options.allowHardLinks !== true) {
        if (single) throw hardLinkError(shownAs, stats.nlink);
        linked += 1;
        return true;
      }
      if (stats.size > SEARCH_MAX_FILE_BYTES) {
        large += 1;
        return true;
      }
      content = await handle.readFile({ signal });
    } finally {
      await handle.close();
    }
    if (looksBinary(content)) {
      binary += 1;
      return true;
    }
    // One more than fits: finding it means the cap was reached with matches left over.
    const found = await search(content.toString("utf8"), SEARCH_MAX_MATCHES - matches.length + 1).catch(
      (error: unknown) => {
        searchFailed = true;
        throw error;
      },
    );
    for (const [index, line] of found) {
      if (matches.length === SEARCH_MAX_MATCHES) {
        stopped = true;
        return false;
      }
      matches.push(`${shownAs}:${index + 1}: ${clip(line)}`);
    }
    return true;
  };

  const directory = await openDirectoryAt(root, name).catch((error: unknown) => {
    // Not a directory (ENOTDIR) or missing: tried as a file below.
    if (isMissing(error)) return undefined;
    throw error;
  });
  if (directory === undefined) {
    await withParent(root, name, {}, (parent, file) => searchFile(parent, file, name, true)).catch((error: unknown) => {
      throw isMissing(error) ? new Error(`${name} does not exist`) : error;
    });
  } else {
    try {
      const prefix = name === "." ? "" : `${name}/`;
      for await (const entry of walkTree(directory, { recursive: true, signal })) {
        if (entry.kind !== "file") continue;
        signal.throwIfAborted();
        // A file may vanish or turn unreadable mid-walk: skip it rather than lose the whole search;
        // a stopped regex ends the whole search.
        const searched = await searchFile(entry.parent, entry.name, prefix + entry.relative, false).catch(
          (error: unknown) => {
            if (signal.aborted || searchFailed) throw error;
            return true;
          },
        );
        if (!searched) break;
      }
    } finally {
      await directory.close();
    }
  }

  const notes: string[] = [];
  if (stopped) notes.push(`[stopped at ${SEARCH_MAX_MATCHES} matches: narrow the pattern or the path]`);
  const skips: string[] = [];
  if (binary > 0) skips.push(`${binary} binary file${binary === 1 ? "" : "s"}`);
  if (large > 0) skips.push(`${large} file${large === 1 ? "" : "s"} over ${formatBytes(SEARCH_MAX_FILE_BYTES)}`);
  if (linked > 0) skips.push(`${linked} file${linked === 1 ? "" : "s"} with more than one hard link`);
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

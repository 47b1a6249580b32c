// @ts-check
// The assistant's Markdown as a tree of plain nodes, which dom.js turns into elements through
// createElement and text nodes only. The model's text is never markup: an HTML tag in it stays
// text, a link keeps only an http, https or mailto address and opens with rel="noopener
// noreferrer", an image is a link to it (the page's CSP loads no outside image). Pure (no DOM),
// so Node tests check it; linear in the text (a scanner, no backtracking regular expression).

/**
 * A text, or an element of the allowlist with its attributes and children.
 * @typedef {string | { tag: string, attrs?: Record<string, string>, children: MdNode[] }} MdNode
 */

/** Every tag the renderer can produce. */
export const MD_TAGS = new Set([
  "p",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "code",
  "strong",
  "em",
  "del",
  "a",
  "span",
  "br",
  "hr",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
]);

/** The schemes a link may have. */
export const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/** Blockquotes and lists nest at most this deep; deeper is read as text. */
const MAX_DEPTH = 6;

/** `url` when it is an absolute http, https or mailto address, else undefined. */
export function safeHref(/** @type {string} */ url) {
  try {
    const parsed = new URL(url.trim());
    return SAFE_SCHEMES.has(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {string} tag
 * @param {MdNode[]} children
 * @param {Record<string, string>} [attrs]
 * @returns {MdNode}
 */
const node = (tag, children, attrs) => (attrs === undefined ? { tag, children } : { tag, attrs, children });

/** @returns {MdNode} */
function link(/** @type {MdNode[]} */ children, /** @type {string} */ url) {
  const href = safeHref(url);
  if (href === undefined) return node("span", children);
  return node("a", children, { href, rel: "noopener noreferrer", target: "_blank" });
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const BULLET = /^( {0,3})([-*+])\s+/;
const ORDERED = /^( {0,3})(\d{1,9})[.)]\s+/;
const TABLE_RULE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Parse `text` into block nodes. */
export function parseMarkdown(/** @type {string} */ text) {
  return blocks(text.replace(/\r\n?/g, "\n").split("\n"), 0);
}

/** @returns {MdNode[]} */
function blocks(/** @type {string[]} */ lines, /** @type {number} */ depth) {
  /** @type {MdNode[]} */
  const out = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      index += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence !== null) {
      const marker = fence[1] ?? "```";
      const body = [];
      index += 1;
      while (index < lines.length && !(lines[index] ?? "").trimStart().startsWith(marker)) {
        body.push(lines[index] ?? "");
        index += 1;
      }
      index += 1; // the closing fence, or past the end
      const lang = fence[2] ?? "";
      out.push(node("pre", [node("code", [body.join("\n")], lang === "" ? undefined : { "data-lang": lang })]));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      // The page has its own h1 and h2: the model's headings sit below them.
      const level = Math.min(6, (heading[1] ?? "#").length + 2);
      out.push(node(`h${level}`, inline(heading[2] ?? "")));
      index += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push(node("hr", []));
      index += 1;
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const body = [];
      while (index < lines.length && QUOTE.test(lines[index] ?? "")) {
        body.push((lines[index] ?? "").replace(QUOTE, ""));
        index += 1;
      }
      out.push(node("blockquote", blocks(body, depth + 1)));
      continue;
    }
    if ((BULLET.test(line) || ORDERED.test(line)) && depth < MAX_DEPTH) {
      index = list(lines, index, depth, out);
      continue;
    }
    const next = lines[index + 1];
    if (line.includes("|") && next !== undefined && TABLE_RULE.test(next) && next.includes("-")) {
      index = table(lines, index, out);
      continue;
    }
    // A paragraph: lines until a blank one or the start of another block.
    const body = [line];
    index += 1;
    while (index < lines.length) {
      const more = lines[index] ?? "";
      if (more.trim() === "" || FENCE.test(more) || HEADING.test(more) || QUOTE.test(more) || RULE.test(more)) break;
      if (BULLET.test(more) || ORDERED.test(more)) break;
      body.push(more);
      index += 1;
    }
    /** @type {MdNode[]} */
    const children = [];
    body.forEach((part, at) => {
      if (at > 0) children.push(node("br", []));
      children.push(...inline(part.trim()));
    });
    out.push(node("p", children));
  }
  return out;
}

/**
 * A list from `lines[start]`: its items, each the marker's line and the lines indented under it.
 * Pushes the list to `out`; returns the index after it.
 * @param {string[]} lines @param {number} start @param {number} depth @param {MdNode[]} out
 */
function list(lines, start, depth, out) {
  const first = lines[start] ?? "";
  const ordered = !BULLET.test(first);
  const pattern = ordered ? ORDERED : BULLET;
  /** @type {MdNode[]} */
  const items = [];
  let index = start;
  let tight = true;
  while (index < lines.length) {
    const match = pattern.exec(lines[index] ?? "");
    if (match === null) break;
    const width = match[0].length;
    const body = [(lines[index] ?? "").slice(width)];
    index += 1;
    while (index < lines.length) {
      const more = lines[index] ?? "";
      if (more.trim() === "") {
        // A blank line inside the list: it goes on if the next line is indented or another item.
        const after = lines[index + 1] ?? "";
        if (after.startsWith("  ") || pattern.test(after)) {
          if (pattern.test(after)) tight = false;
          body.push("");
          index += 1;
          continue;
        }
        break;
      }
      if (pattern.test(more) || (!more.startsWith(" ") && (BULLET.test(more) || ORDERED.test(more)))) break;
      if (!more.startsWith(" ") && (HEADING.test(more) || FENCE.test(more) || QUOTE.test(more))) break;
      body.push(more.replace(/^ {1,4}/, ""));
      index += 1;
    }
    const content = blocks(body, depth + 1);
    // A tight item's single paragraph is its text, without a <p>.
    const single = content.length >= 1 && typeof content[0] === "object" && content[0].tag === "p";
    items.push(
      node(
        "li",
        tight && single && typeof content[0] === "object" ? [...content[0].children, ...content.slice(1)] : content,
      ),
    );
  }
  const number = ordered ? ORDERED.exec(first)?.[2] : undefined;
  out.push(
    node(
      ordered ? "ol" : "ul",
      items,
      number !== undefined && number !== "1" ? { start: String(Number(number)) } : undefined,
    ),
  );
  return index;
}

/** A GFM table: a header row, its rule, the rows under it. @param {string[]} lines @param {number} start @param {MdNode[]} out */
function table(lines, start, out) {
  const cells = (/** @type {string} */ row) =>
    row
      .trim()
      .replace(/^\|/, "")
      .replace(/\|$/, "")
      .split("|")
      .map((cell) => cell.trim());
  const head = cells(lines[start] ?? "");
  let index = start + 2;
  /** @type {MdNode[]} */
  const rows = [];
  while (index < lines.length && (lines[index] ?? "").includes("|") && (lines[index] ?? "").trim() !== "") {
    const row = cells(lines[index] ?? "");
    rows.push(
      node(
        "tr",
        head.map((_, at) => node("td", inline(row[at] ?? ""))),
      ),
    );
    index += 1;
  }
  out.push(
    node("table", [
      node("thead", [
        node(
          "tr",
          head.map((cell) => node("th", inline(cell))),
        ),
      ]),
      node("tbody", rows),
    ]),
  );
  return index;
}

/** Characters a backslash escapes. */
const ESCAPABLE = new Set("\\`*_{}[]()#+-.!~|<>");

/** Parse inline Markdown: code, strong, emphasis, strikethrough, links, autolinks. */
export function inline(/** @type {string} */ text) {
  return inlineDepth(text, 0);
}

/** @returns {MdNode[]} */
function inlineDepth(/** @type {string} */ text, /** @type {number} */ depth) {
  /** @type {MdNode[]} */
  const out = [];
  let plain = "";
  const flush = () => {
    if (plain !== "") out.push(plain);
    plain = "";
  };
  // Where a marker was found not to close: it closes nowhere after either, so one text is scanned
  // once per marker, not once per opening (linear, whatever the model writes).
  /** @type {Map<string, number>} */
  const unclosed = new Map();
  const closes = (/** @type {string} */ marker, /** @type {number} */ from) => {
    // An opening followed by a space opens nothing (`2 * 3`): no scan, nothing to remember.
    if (!marker.startsWith("`") && (from >= text.length || /\s/.test(text[from] ?? ""))) return -1;
    if (from >= (unclosed.get(marker) ?? Number.POSITIVE_INFINITY)) return -1;
    const end = marker.startsWith("`") ? text.indexOf(marker, from) : closing(text, marker, from);
    if (end === -1) unclosed.set(marker, from);
    return end;
  };
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? "";
    if (char === "\\" && ESCAPABLE.has(text[index + 1] ?? "")) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    if (char === "`") {
      let ticks = 1;
      while (text[index + ticks] === "`") ticks += 1;
      const fence = "`".repeat(ticks);
      const end = closes(fence, index + ticks);
      if (end !== -1) {
        flush();
        out.push(node("code", [text.slice(index + ticks, end).trim() || text.slice(index + ticks, end)]));
        index = end + ticks;
        continue;
      }
      plain += fence;
      index += ticks;
      continue;
    }
    if (depth < MAX_DEPTH && (char === "*" || char === "_" || char === "~")) {
      const double = text[index + 1] === char;
      if (char === "~" && !double) {
        plain += char;
        index += 1;
        continue;
      }
      const marker = double ? char + char : char;
      const end = closes(marker, index + marker.length);
      // `_` inside a word (snake_case) is a letter, not emphasis.
      const wordy = char === "_" && /\w/.test(text[index - 1] ?? "");
      if (end !== -1 && !wordy) {
        flush();
        const tag = char === "~" ? "del" : double ? "strong" : "em";
        out.push(node(tag, inlineDepth(text.slice(index + marker.length, end), depth + 1)));
        index = end + marker.length;
        continue;
      }
      plain += marker;
      index += marker.length;
      continue;
    }
    if (char === "!" && text[index + 1] === "[") {
      const parsed = bracketLink(text, index + 1);
      if (parsed !== undefined) {
        flush();
        // An image is never loaded: a link to it, named by its alt text.
        out.push(link([parsed.label === "" ? "image" : `image: ${parsed.label}`], parsed.url));
        index = parsed.end;
        continue;
      }
    }
    if (char === "[" && depth < MAX_DEPTH) {
      const parsed = bracketLink(text, index);
      if (parsed !== undefined) {
        flush();
        out.push(link(inlineDepth(parsed.label, depth + 1), parsed.url));
        index = parsed.end;
        continue;
      }
    }
    if (char === "<") {
      const end = text.indexOf(">", index);
      const inside = end === -1 ? "" : text.slice(index + 1, end);
      if (end !== -1 && /^(https?:\/\/|mailto:)[^\s<>]+$/.test(inside)) {
        flush();
        out.push(link([inside], inside));
        index = end + 1;
        continue;
      }
    }
    if (
      (char === "h" || char === "H") &&
      /^https?:\/\//i.test(text.slice(index, index + 8)) &&
      !/\w/.test(text[index - 1] ?? "")
    ) {
      let end = index;
      while (end < text.length && !/[\s<>]/.test(text[end] ?? "")) end += 1;
      // Trailing punctuation ends the sentence, not the address.
      while (end > index && /[.,;:!?)'"]/.test(text[end - 1] ?? "")) end -= 1;
      const url = text.slice(index, end);
      flush();
      out.push(link([url], url));
      index = end;
      continue;
    }
    plain += char;
    index += 1;
  }
  flush();
  return out;
}

/** Where `marker` closes after `from` (not right after the opening, not inside code), or -1. */
function closing(/** @type {string} */ text, /** @type {string} */ marker, /** @type {number} */ from) {
  if (from >= text.length || /\s/.test(text[from] ?? "")) return -1;
  let index = from;
  while (index < text.length) {
    const char = text[index];
    if (char === "\\") {
      index += 2;
      continue;
    }
    if (char === "`") {
      const end = text.indexOf("`", index + 1);
      if (end === -1) return -1;
      index = end + 1;
      continue;
    }
    if (text.startsWith(marker, index) && index > from && !/\s/.test(text[index - 1] ?? "")) {
      // `**` closes a strong run, not an emphasis that meets another: `*a**` is not `*a*`.
      if (marker.length === 1 && text[index + 1] === marker) {
        index += 2;
        continue;
      }
      return index;
    }
    index += 1;
  }
  return -1;
}

/**
 * `[label](url)` at `start`: the label, the address and the index after it; undefined when it is
 * not one (brackets nest in the label; the address has no spaces and may be in angle brackets).
 */
function bracketLink(/** @type {string} */ text, /** @type {number} */ start) {
  let depth = 0;
  let index = start;
  // A label is short: a bracket left open does not make every later one scan to the end.
  const last = Math.min(text.length, start + 1000);
  for (; index < last; index += 1) {
    const char = text[index];
    if (char === "\\") index += 1;
    else if (char === "[") depth += 1;
    else if (char === "]") {
      depth -= 1;
      if (depth === 0) break;
    }
  }
  if (depth !== 0 || text[index + 1] !== "(") return undefined;
  const close = text.indexOf(")", index + 2);
  if (close === -1 || close - index > 2000) return undefined;
  const target = text.slice(index + 2, close).trim();
  const url = target.startsWith("<") && target.endsWith(">") ? target.slice(1, -1) : (target.split(/\s+/)[0] ?? "");
  return { label: text.slice(start + 1, index), url, end: close + 1 };
}

/** The text a tree shows, concatenated (what a screen reader reads, less the line breaks). */
export function textOf(/** @type {MdNode[]} */ nodes) {
  let text = "";
  for (const item of nodes) text += typeof item === "string" ? item : textOf(item.children);
  return text;
}

/**
 * A generated section of bench/README.md: the text between `<!-- name:start -->` and
 * `<!-- name:end -->` is replaced, the rest of the file is left as it is.
 */

/** `text` with the body of section `name` replaced by `body`; throws if the markers are missing. */
export function replaceSection(text: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end, from + start.length);
  if (from < 0 || to < 0) throw new Error(`bench/README.md has no ${start} … ${end} section`);
  return `${text.slice(0, from + start.length)}\n${body.trim()}\n${text.slice(to)}`;
}

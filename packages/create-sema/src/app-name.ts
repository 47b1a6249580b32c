/**
 * The app's name: its folder's name, and the `name` of its package.json, so it follows npm's rules
 * for a new package (lower case, URL-safe, at most 214 characters, not starting with `.` or `_`).
 */

const MAX_LENGTH = 214;
/** Lower-case letters, digits and `-._~`, the characters npm allows in a new unscoped name. */
const ALLOWED = /^[a-z0-9][a-z0-9._~-]*$/;
const RESERVED = new Set(["node_modules", "favicon.ico"]);

/** Why `name` cannot name the app, or undefined when it can. */
export function appNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name.length > MAX_LENGTH) return `is longer than ${MAX_LENGTH} characters`;
  if (name.startsWith(".") || name.startsWith("_")) return "starts with . or _";
  if (RESERVED.has(name)) return "is a name npm reserves";
  if (name !== name.toLowerCase()) return `has upper-case letters: try "${name.toLowerCase()}"`;
  if (!ALLOWED.test(name)) return "may hold only a-z, 0-9 and - . _ ~ (no spaces, no /)";
  return undefined;
}

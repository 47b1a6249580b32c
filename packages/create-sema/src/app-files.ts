/**
 * The files of a new app: the template folder's files as they are (`gitignore` becomes
 * `.gitignore`, which npm would leave out of the tarball), the README with the app's name, and a
 * package.json that pins the Sema packages at this package's own version: they are released
 * together, so `create-sema@x` makes an app on Sema x.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Node.js the app needs: its `.ts` files run with plain `node` (type stripping, on by default from 22.18). */
export const NODE_RANGE = ">=22.18";

/** The third-party packages the app uses, at the ranges this repository is built and tested with. */
export const THIRD_PARTY = {
  zod: "^4.6.7",
  "@types/node": "^24.19.4",
  typescript: "^7.0.2",
} as const;

/** One file of the app: its path relative to the app's folder, and its text. */
export interface AppFile {
  path: string;
  text: string;
}

const here = new URL("../", import.meta.url);
const templateDir = fileURLToPath(new URL("template/", here));

/** The version of create-sema, read from its package.json (beside src/ and dist/ alike). */
export function ownVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("package.json", here), "utf8")) as { version?: unknown };
  if (typeof manifest.version !== "string") throw new Error("create-sema's package.json has no version");
  return manifest.version;
}

/** The app's package.json: scripts, engines, and the packages it needs at `version`. */
export function appManifest(name: string, version: string): string {
  const manifest = {
    name,
    version: "0.1.0",
    private: true,
    type: "module",
    engines: { node: NODE_RANGE },
    // npm (10.9 and later) refuses to install or run the app on an older Node, naming the range.
    devEngines: { runtime: { name: "node", version: NODE_RANGE, onFail: "error" } },
    scripts: {
      start: "node index.ts",
      test: "node --test",
      serve: "sema serve",
      typecheck: "tsc",
    },
    dependencies: {
      "@sema-agent/ai-sdk": version,
      "@sema-agent/core": version,
      zod: THIRD_PARTY.zod,
    },
    // @sema-agent/cli here makes `npx sema` this project's command, never an unrelated npm package.
    devDependencies: {
      "@sema-agent/cli": version,
      "@types/node": THIRD_PARTY["@types/node"],
      typescript: THIRD_PARTY.typescript,
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Every file of an app named `name` on Sema `version`. */
export function appFiles(name: string, version: string): AppFile[] {
  const files: AppFile[] = [{ path: "package.json", text: appManifest(name, version) }];
  for (const entry of readdirSync(templateDir).sort()) {
    const text = readFileSync(join(templateDir, entry), "utf8");
    if (entry === "gitignore") files.push({ path: ".gitignore", text });
    else if (entry === "README.md") files.push({ path: entry, text: text.replaceAll("{{name}}", name) });
    else files.push({ path: entry, text });
  }
  return files;
}

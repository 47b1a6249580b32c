/**
 * A workspace package packed as `npm publish` packs it, for the tests that install the packages as
 * a user gets them (packing.test.ts, create-sema-app.test.ts): from a copy, through the real
 * prepack step (scripts/publish-manifest.mjs), so the workspace's own manifest is never touched
 * while other tests resolve it. What is packed is dist/: a build older than its sources is refused.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
/** The repository's root. */
export const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Node 22, the oldest line the packages' `engines` admit, pinned by the tools/node22 workspace. */
export const node22 = join(repo, "tools", "node22", "node_modules", "node", "bin", "node");

/** Every published package, by folder under packages/. */
export const PACKAGES = [
  "core",
  "sqlite",
  "postgres",
  "ai-sdk",
  "mcp",
  "a2a",
  "otel",
  "evals",
  "worker",
  "server",
  "cli",
  "create-sema",
] as const;

/** A published package's manifest, as far as the tests read it. */
export interface Manifest {
  name: string;
  version: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A packed package: its tarball, its published manifest, and the staged copy it was packed from. */
export interface Packed {
  tarball: string;
  manifest: Manifest;
  stage: string;
}

/** The newest modification time of the files under `dir` that `keep` selects. */
function newest(dir: string, keep: (file: string) => boolean): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = join(dir, entry);
    if (keep(file) && statSync(file).isFile()) latest = Math.max(latest, statSync(file).mtimeMs);
  }
  return latest;
}

/** What is packed is dist/, built by `npm ci` (prepare) or `npm run build`: refuse a stale one. */
export function assertBuilt(name: string): void {
  const root = join(repo, "packages", name);
  const source = newest(join(root, "src"), (file) => file.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(file));
  const built = existsSync(join(root, "dist")) ? newest(join(root, "dist"), () => true) : 0;
  if (built < source) throw new Error(`packages/${name}/dist is older than its src/: run \`npm run build\` first`);
}

/** Pack `packages/<name>` from a copy under `work`/stage into `work`/tarballs. */
export async function packWorkspace(name: string, work: string): Promise<Packed> {
  assertBuilt(name);
  const stage = join(work, "stage", name);
  cpSync(join(repo, "packages", name), stage, {
    recursive: true,
    filter: (source) => !source.includes(`${name}/node_modules`),
  });
  await run(process.execPath, [join(repo, "scripts", "publish-manifest.mjs"), "prepack"], { cwd: stage });
  const out = join(work, "tarballs");
  mkdirSync(out, { recursive: true });
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", out, "--json"], {
    cwd: stage,
  });
  const [info] = JSON.parse(stdout) as { filename: string }[];
  if (info === undefined) throw new Error(`npm pack gave nothing for ${name}`);
  const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8")) as Manifest;
  return { tarball: join(out, info.filename), manifest, stage };
}

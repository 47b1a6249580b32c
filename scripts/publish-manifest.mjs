// Run by each package's `prepack` and `postpack`: the published manifest carries no `source`
// export condition (it points at src/*.ts, which the tarball does not contain), so a consumer
// running with `--conditions=source` still resolves dist/. `prepack` keeps the workspace's
// manifest beside it and writes the published one; `postpack` puts the workspace's back.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const mode = process.argv[2];
const manifest = "package.json";
const kept = "package.json.workspace";

function withoutSource(value) {
  if (Array.isArray(value)) return value.map(withoutSource);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "source")
      .map(([key, inner]) => [key, withoutSource(inner)]),
  );
}

if (mode === "prepack") {
  // A pack that died before postpack left the workspace's manifest aside: restore it first.
  if (existsSync(kept)) renameSync(kept, manifest);
  const text = readFileSync(manifest, "utf8");
  const json = JSON.parse(text);
  writeFileSync(kept, text);
  if (json.exports !== undefined) json.exports = withoutSource(json.exports);
  writeFileSync(manifest, `${JSON.stringify(json, null, 2)}\n`);
} else if (mode === "postpack") {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error("usage: publish-manifest.mjs prepack|postpack");
  process.exit(2);
}

/**
 * Every property test replays from a seed: fast-check prints `{ seed, path }` with a failure, and
 * `FC_SEED=<seed> [FC_PATH=<path>] npx vitest run <file>` runs exactly that case again.
 */
import fc from "fast-check";

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== "") {
  const path = process.env.FC_PATH;
  fc.configureGlobal({
    ...fc.readConfigureGlobal(),
    seed: Number(seed),
    ...(path === undefined || path === "" ? {} : { path, endOnFailure: true }),
  });
}

/**
 * For the PostgreSQL kill fixtures (prune-kill-pg, migrate-kill-pg), in the child process: count
 * the statements that change what a kill leaves, and SIGKILL the process before the `killAt`-th
 * runs. A step is every write (INSERT, UPDATE, DELETE, or a WITH that may hold one or lock rows)
 * and every COMMIT. Plain reads and BEGIN are not steps: a kill before one leaves the database as
 * a kill before the next step does. Hooks `pg`'s `Client.prototype.query`, which the store's pool
 * clients run every statement through.
 */
import pg from "pg";

/** The steps counted so far, and whether counting is on. */
export interface KillSteps {
  /** Count (and maybe kill) from now on. */
  arm(): void;
  /** Stop counting. */
  disarm(): void;
  /** One more step outside the database (an archive file moved into place): counted when armed. */
  step(): void;
  /** Steps counted. */
  readonly count: number;
}

/** The SQL of a `query` call's first argument (a text or a config with `text`). */
function textOf(config: unknown): string {
  if (typeof config === "string") return config;
  if (typeof config === "object" && config !== null && "text" in config) return String(config.text);
  return "";
}

/** Hook `pg.Client.prototype.query` so the `killAt`-th step (1-based; 0: never) kills the process. */
export function killAtPgStep(killAt: number): KillSteps {
  let armed = false;
  let count = 0;
  const step = () => {
    if (armed && ++count === killAt) process.kill(process.pid, "SIGKILL");
  };
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function counted(this: unknown, ...args: unknown[]) {
    const text = textOf(args[0]).trimStart();
    if (/^(INSERT|UPDATE|DELETE|WITH|COMMIT)\b/i.test(text)) step();
    return Reflect.apply(query, this, args);
  };
  return {
    arm: () => {
      armed = true;
    },
    disarm: () => {
      armed = false;
    },
    step,
    get count() {
      return count;
    },
  };
}

/** The suite's environments by name: the three the default run measures, and `limits`. */
import { banking } from "./environments/banking.ts";
import { limits } from "./environments/limits.ts";
import { mailbox } from "./environments/mailbox.ts";
import { workspace } from "./environments/workspace.ts";
import { type AnyEnvironment, anyEnvironment } from "./types.ts";

/** Every environment, by name. */
export const ENVIRONMENTS: Readonly<Record<string, AnyEnvironment>> = {
  mailbox: anyEnvironment(mailbox),
  workspace: anyEnvironment(workspace),
  banking: anyEnvironment(banking),
  limits: anyEnvironment(limits),
};

/** What a run measures when no suite is named: the three environments the goals are about. */
export const DEFAULT_SUITES: readonly string[] = ["mailbox", "workspace", "banking"];

/** The environments of `names` (`all`: every one); throws on an unknown name. */
export function environmentsOf(names: readonly string[]): AnyEnvironment[] {
  const wanted = names.includes("all") ? Object.keys(ENVIRONMENTS) : names;
  return wanted.map((name) => {
    const environment = ENVIRONMENTS[name];
    if (environment === undefined) {
      throw new Error(`no suite ${name}: one of ${[...Object.keys(ENVIRONMENTS), "all"].join(", ")}`);
    }
    return environment;
  });
}

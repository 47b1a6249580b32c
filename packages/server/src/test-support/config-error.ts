/** The message of the `ConfigError` that `run` throws (or rejects with); fails the test otherwise. */
import { isSemaError } from "@sema-agent/core";
import { expect } from "vitest";

export async function configErrorOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    expect(isSemaError(error, "ConfigError")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

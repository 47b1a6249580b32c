// SchemaMatches catches what a keys-only check let through: a field whose type drifted, an
// optional key made required, a nested field changed. Checked by tsc (`npm run typecheck`).
import { z } from "zod";
import type { SchemaMatches } from "./config-shape.ts";

interface Options {
  name: string;
  limit?: number;
  nested?: { depth?: number; tags?: readonly string[] };
  onEvent?: (event: string) => void;
}

const good = z.strictObject({
  name: z.string(),
  limit: z.number().optional(),
  nested: z.strictObject({ depth: z.number().optional(), tags: z.array(z.string()).optional() }).optional(),
  onEvent: z.custom<(event: string) => void>().optional(),
});
const matches: SchemaMatches<typeof good, Options> = true;

// The same keys, each a different lie: a keys-only check passes all four.
const wrongType = good.extend({ limit: z.string().optional() });
// @ts-expect-error a field whose type drifted
const typeDrift: SchemaMatches<typeof wrongType, Options> = true;

const required = good.extend({ limit: z.number() });
// @ts-expect-error an optional option made required
const requiredDrift: SchemaMatches<typeof required, Options> = true;

const deep = good.extend({
  nested: z.strictObject({ depth: z.string().optional(), tags: z.array(z.string()).optional() }).optional(),
});
// @ts-expect-error a nested field whose type drifted
const nestedDrift: SchemaMatches<typeof deep, Options> = true;

const callback = good.extend({ onEvent: z.custom<(event: number) => void>().optional() });
// @ts-expect-error a callback's parameter changed
const callbackDrift: SchemaMatches<typeof callback, Options> = true;

export const checks = [matches, typeDrift, requiredDrift, nestedDrift, callbackDrift];

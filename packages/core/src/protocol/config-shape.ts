/**
 * Configuration schemas tied to the interfaces they check, by type and not by keys alone. An
 * options interface keeps its TSDoc per field; its strict zod schema is written beside it with
 * `satisfies ShapeOf<Options>` (every key has a schema), and a compile-time
 * `SchemaMatches<typeof schema, Options>` proves the schema's output is the interface field by
 * field, so neither can drift: a field the schema types differently fails to compile.
 */
import type { z } from "zod";

/** Every key of `T`, required, each with a zod schema: a shape that cannot leave an option out. */
export type ShapeOf<T> = { [K in keyof T]-?: z.ZodType };

/** `true` when `A` and `B` are the same type (not merely assignable either way). */
export type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

type Shallower = [never, 0, 1, 2, 3, 4];

/**
 * `T` with `| undefined` taken out of every property (an optional key stays optional) and
 * `readonly` dropped, through objects and arrays `Depth` levels down; functions are kept as they
 * are. `.optional()` adds `undefined` to a field's output where `exactOptionalPropertyTypes`
 * interfaces say `key?: X`, and a schema's output is never readonly where an interface may be.
 */
export type ExactShape<T, Depth extends number = 4> = [Depth] extends [never]
  ? T
  : T extends (...args: never[]) => unknown
    ? T
    : T extends object
      ? { -readonly [K in keyof T]: ExactShape<Exclude<T[K], undefined>, Shallower[Depth]> }
      : T;

/**
 * `true` when the output of `Schema` is `T` field by field (each field's type and optionality,
 * `Depth` levels down), `.optional()`'s `undefined` aside: write
 * `const matches: SchemaMatches<typeof schema, Options> = true;` beside the schema.
 */
export type SchemaMatches<Schema extends z.ZodType, T, Depth extends number = 4> = Equal<
  ExactShape<z.output<Schema>, Depth>,
  ExactShape<T, Depth>
>;

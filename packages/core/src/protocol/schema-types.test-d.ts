// The hand-written protocol types (the seed's names, fixed as published, and the model-facing
// vocabulary in internal/llm.ts) agree with the zod schemas that validate them: checked by tsc
// (`npm run typecheck`), so a change to either side that the other does not follow fails the build.
import { expectTypeOf } from "vitest";
import type { z } from "zod";
import type {
  HumanInputDelivery,
  HumanInputEvent,
  HumanInputPolicy,
  HumanInputSource,
  TaskEventIdentity,
} from "./human-input.ts";
import type { actorSchema, humanInputSchema, modelTurnSchema, toolCallSchema, toolResultSchema } from "./task-event.ts";
import type { ActorAssertion, FinishReason, ToolCall, ToolResultStatus } from "./transcript.ts";

type Parsed<S extends z.ZodType> = z.infer<S>;
type HumanInputParsed = Parsed<typeof humanInputSchema>;

expectTypeOf<Parsed<typeof actorSchema>>().toEqualTypeOf<ActorAssertion>();
expectTypeOf<Parsed<typeof toolCallSchema>>().toEqualTypeOf<ToolCall>();
expectTypeOf<Parsed<typeof modelTurnSchema>["finishReason"]>().toEqualTypeOf<FinishReason>();
expectTypeOf<Parsed<typeof toolResultSchema>["status"]>().toEqualTypeOf<ToolResultStatus>();

// The human_input arm: every field alike. `v` is required by the schema and optional in the
// seed's interface (its constructors' signatures predate it); every constructor writes it.
expectTypeOf<Omit<HumanInputParsed, "v">>().toEqualTypeOf<Omit<HumanInputEvent, "v" | keyof TaskEventIdentity>>();
expectTypeOf<HumanInputParsed["v"]>().toEqualTypeOf<Exclude<HumanInputEvent["v"], undefined>>();
expectTypeOf<HumanInputParsed["source"]>().toEqualTypeOf<HumanInputSource>();
expectTypeOf<HumanInputParsed["delivery"]>().toEqualTypeOf<HumanInputDelivery>();
expectTypeOf<Exclude<HumanInputParsed["policy"], undefined>>().toEqualTypeOf<HumanInputPolicy>();

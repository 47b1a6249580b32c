/**
 * What a step of a turn tells the turn loop: go on to the turn's `next` step; start `again` at the
 * step boundary (something came first that the boundary handles: a stop, a steer, an answer sent
 * back to work); or the leg has `ended` (its end is in the log).
 */
export type StepOutcome = "next" | "again" | "ended";

/**
 * One route = one spec: method, path, the zod schemas of its params, query and body, its
 * documented responses, and the handler. `mountRoutes` registers each on the Hono app with its
 * validation, and the OpenAPI document is generated from the same specs, so the document cannot
 * describe a route or a schema the server does not enforce.
 */
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "./app-env.ts";
import { badRequest } from "./http-error.ts";
import type { Caller } from "./ingress/caller.ts";
import { type BodyLimits, readJsonBody } from "./request-body.ts";

/** What a handler receives: validated params, query and body, and the authenticated caller. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller;
  context: Context<AppEnv>;
}

export interface ResponseSpec {
  description: string;
  /** A registered schema for a JSON body. */
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** The route may answer with `text/event-stream` instead (documented beside the JSON body). */
  eventStream?: boolean;
}

type Empty = z.ZodObject<Record<string, never>>;

export interface RouteSpec<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty> {
  method: "get" | "post";
  /** Hono syntax: `/v1/tasks/:taskId`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be left out (read as `{}`). */
  bodyOptional?: boolean;
  /** The body may carry content parts (base64 images and files): read under `maxContentBodyBytes`. */
  contentBody?: boolean;
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route can answer with (documented with `ErrorBody`). */
  errors: number[];
  handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<Response>;
}

/** A spec with its types erased, for lists of routes. */
export type AnyRouteSpec = RouteSpec<z.ZodType, z.ZodType, z.ZodType>;

/** Identity, for type inference: `route({ … })` checks the handler against the schemas. */
export function route<P extends z.ZodType = Empty, Q extends z.ZodType = Empty, B extends z.ZodType = Empty>(
  spec: RouteSpec<P, Q, B>,
): AnyRouteSpec {
  return spec as unknown as AnyRouteSpec;
}

/** The first issue as a path (`body.text`, `query.limit`) and every issue for the details. */
function validationError(where: string, error: z.ZodError): Error {
  const issues = error.issues.map((issue) => {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const base = [where, ...issue.path.map(String)].join(".");
    return { path: keys.length > 0 ? `${base}.${keys.join(",")}` : base, message: issue.message };
  });
  const first = issues[0] ?? { path: where, message: "invalid" };
  return badRequest(`${first.path}: ${first.message}`, first.path, { issues });
}

function parse<S extends z.ZodType>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (schema === undefined) return {} as z.output<S>;
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(where, result.error);
  return result.data;
}

/** Register every route on `app`; bodies are read under `limits` (size, nesting depth). */
export function mountRoutes(
  app: Hono<AppEnv>,
  routes: readonly AnyRouteSpec[],
  limits: BodyLimits & { maxContentBodyBytes: number },
): void {
  const contentLimits: BodyLimits = { maxBodyBytes: limits.maxContentBodyBytes, maxJsonDepth: limits.maxJsonDepth };
  for (const spec of routes) {
    app.on(spec.method.toUpperCase(), spec.path, async (context) => {
      const params = parse(spec.params, context.req.param(), "params");
      const query = parse(spec.query, context.req.query(), "query");
      let body: unknown = {};
      if (spec.body !== undefined) {
        const raw = await readJsonBody(
          context.req.raw,
          spec.contentBody === true ? contentLimits : limits,
          spec.bodyOptional === true,
        );
        body = parse(spec.body, raw ?? {}, "body");
      }
      return spec.handler({ params, query, body, caller: context.get("caller"), context });
    });
  }
}

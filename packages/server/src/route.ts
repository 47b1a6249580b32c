/**
 * One route = one spec: method, path, the zod schemas of its params, query and body, its
 * documented responses, and the handler. `mountRoutes` registers each on the Hono app with its
 * validation, and the OpenAPI document is generated from the same specs, so the document cannot
 * describe a route or a schema the server does not enforce.
 */
import { ForbiddenError } from "@sema-agent/core/protocol";
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "./app-env.ts";
import { badRequest } from "./http-error.ts";
import type { Caller } from "./ingress/caller.ts";
import type { Role } from "./ingress/token-store.ts";
import type { Limits } from "./limits.ts";
import { type BodyLimits, readJsonBody, readTextBody } from "./request-body.ts";

/** What a handler receives: validated params, query and body, and the authenticated caller. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /**
   * The body of a route with `textBody`, as text; empty for every other route, and when a route
   * with both `textBody` and `body` was sent JSON (then `body` is set; otherwise it is `{}`).
   */
  text: string;
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
  /**
   * The body is text, not JSON (an export file): one of `mediaTypes`, read as strict UTF-8 under
   * the limit named, and handed to the handler as `text`. Documented as a string body. With
   * `body` too, an `application/json` body is read as that instead, under the same limit.
   */
  textBody?: {
    mediaTypes: readonly string[];
    limit: "maxImportBodyBytes" | "maxDatasetBodyBytes";
    description: string;
  };
  /** The token must have this role (403 `Forbidden` otherwise), checked before the body is read. */
  role?: Role;
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

/** Whether a content type names JSON (`application/json`, with any parameters). */
function isJson(header: string | undefined): boolean {
  return (header ?? "").split(";")[0]?.trim().toLowerCase() === "application/json";
}

/** Register every route on `app`; bodies are read under `limits` (size, nesting depth). */
export function mountRoutes(
  app: Hono<AppEnv>,
  routes: readonly AnyRouteSpec[],
  limits: BodyLimits & Pick<Limits, "maxContentBodyBytes" | "maxImportBodyBytes" | "maxDatasetBodyBytes">,
): void {
  const contentLimits: BodyLimits = { maxBodyBytes: limits.maxContentBodyBytes, maxJsonDepth: limits.maxJsonDepth };
  for (const spec of routes) {
    app.on(spec.method.toUpperCase(), spec.path, async (context) => {
      const caller = context.get("caller");
      if (spec.role !== undefined && !caller.roles.has(spec.role))
        throw new ForbiddenError(`${spec.method.toUpperCase()} ${spec.path} needs a token with the ${spec.role} role`, {
          role: spec.role,
        });
      const params = parse(spec.params, context.req.param(), "params");
      const query = parse(spec.query, context.req.query(), "query");
      let text = "";
      let body: unknown = {};
      // A route taking text or JSON (a dataset file, or the tasks to make one of) reads JSON when sent JSON.
      const json =
        spec.body !== undefined && (spec.textBody === undefined || isJson(context.req.header("content-type")));
      if (spec.textBody !== undefined && !json)
        text = await readTextBody(
          context.req.raw,
          // JSON went the other way; named here only so a 415 lists every type the route takes.
          spec.body === undefined ? spec.textBody.mediaTypes : [...spec.textBody.mediaTypes, "application/json"],
          limits[spec.textBody.limit],
        );
      if (spec.body !== undefined && json) {
        const bodyLimits =
          spec.textBody !== undefined
            ? { maxBodyBytes: limits[spec.textBody.limit], maxJsonDepth: limits.maxJsonDepth }
            : spec.contentBody === true
              ? contentLimits
              : limits;
        const raw = await readJsonBody(context.req.raw, bodyLimits, spec.bodyOptional === true);
        body = parse(spec.body, raw ?? {}, "body");
      }
      return spec.handler({ params, query, body, text, caller, context });
    });
  }
}

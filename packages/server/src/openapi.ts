/**
 * The OpenAPI 3.1 document, generated from the route specs and the registered zod schemas. 3.1's
 * schema dialect is JSON Schema 2020-12, which is what zod emits, so no conversion layer sits
 * between what is validated and what is documented.
 */
import { z } from "zod";
import type { AnyRouteSpec } from "./route.ts";
import { ErrorBody } from "./schemas/common.ts";
import { apiSchemas } from "./schemas/registry.ts";

type JsonObject = { [key: string]: unknown };

const ERROR_TEXT: Record<number, string> = {
  400: "The request failed its schema or an ingress rule; `details.path` names the failing part.",
  401: "No credentials, or credentials that are not valid.",
  403: "The caller may not do this (a lane, an approval or a route it has no role for).",
  404: "No such task for this principal (another principal's task is not found either), or no such call.",
  409: "A conflict with the task's state: finished, already decided, a digest that does not match, an agent no longer served.",
  413: "The body or a text in it is over the limit.",
  415: "The body is not of the route's media type (application/json unless the route says otherwise).",
  429: "Over the principal's rate limit; `Retry-After` says when to try again.",
  503: "The store or the worker pool is unavailable; retry later.",
};

/** Strip the keys zod puts on a top-level schema that have no meaning inside an OpenAPI document. */
function clean(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

function componentSchemas(): Record<string, JsonObject> {
  const { schemas } = z.toJSONSchema(apiSchemas, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, clean(schema as JsonObject)]));
}

function ref(schema: z.ZodType): JsonObject {
  const meta = apiSchemas.get(schema);
  if (meta === undefined) throw new Error("openapi: a body schema is not registered (use named())");
  return { $ref: `#/components/schemas/${meta.id}` };
}

/** Each property of a params or query object as one OpenAPI parameter. */
function parameters(schema: z.ZodType | undefined, where: "path" | "query"): JsonObject[] {
  if (schema === undefined) return [];
  const json = clean(z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }));
  const properties = (json.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: JsonObject = { name, in: where, required: where === "path" || required.has(name), schema: rest };
    if (typeof description === "string") parameter.description = description;
    return parameter;
  });
}

function operation(spec: AnyRouteSpec): JsonObject {
  const responses: JsonObject = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const entry: JsonObject = { description: response.description };
    if (response.schema !== undefined)
      entry.content = { [response.contentType ?? "application/json"]: { schema: ref(response.schema) } };
    else if (response.contentType !== undefined)
      entry.content = { [response.contentType]: { schema: { type: "string" } } };
    if (response.eventStream === true)
      entry.content = { "text/event-stream": { schema: { type: "string" } }, ...(entry.content as JsonObject) };
    responses[status] = entry;
  }
  for (const status of spec.errors) {
    responses[status] = {
      description: ERROR_TEXT[status] ?? "An error.",
      content: { "application/json": { schema: ref(ErrorBody) } },
    };
  }
  const op: JsonObject = {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.tag],
    parameters: [...parameters(spec.params, "path"), ...parameters(spec.query, "query")],
    responses,
  };
  if (spec.body !== undefined)
    op.requestBody = {
      required: spec.bodyOptional !== true,
      content: { "application/json": { schema: ref(spec.body) } },
    };
  if (spec.textBody !== undefined)
    op.requestBody = {
      required: true,
      description: spec.textBody.description,
      content: {
        ...Object.fromEntries(spec.textBody.mediaTypes.map((type) => [type, { schema: { type: "string" } }])),
        ...(spec.body === undefined ? {} : { "application/json": { schema: ref(spec.body) } }),
      },
    };
  return op;
}

/** `/v1/tasks/:taskId` → `/v1/tasks/{taskId}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

export function buildOpenApi(routes: readonly AnyRouteSpec[], info: { title: string; version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const spec of routes) {
    const path = openApiPath(spec.path);
    paths[path] = { ...paths[path], [spec.method]: operation(spec) };
  }
  return {
    openapi: "3.1.0",
    info: { ...info, description: "Sema's HTTP API: tasks, human input, approvals and the live event stream." },
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "A token from `sema token create`." } },
    },
  };
}

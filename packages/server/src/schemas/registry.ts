/**
 * The named schemas of the API. Each is registered once here and referenced from the OpenAPI
 * document as `#/components/schemas/<id>`, so the document and the validation use one object.
 */
import { z } from "zod";

export interface SchemaMeta {
  id: string;
  description?: string;
}

export const apiSchemas = z.registry<SchemaMeta>();

/** Register `schema` under `id` and return it unchanged. */
export function named<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  apiSchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}

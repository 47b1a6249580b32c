/**
 * A local OTLP/HTTP trace receiver for tests: it decodes what an exporter posts to /v1/traces,
 * in protobuf (with the OTLP .proto files vendored beside it, v1.11.0, decoded by protobufjs) or
 * in JSON, into one flat shape per span. It can also stay silent: take the request and never
 * answer, as a hung collector does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";

const PROTO_DIR = fileURLToPath(new URL("./otlp-proto/", import.meta.url));

/** An attribute value as decoded (arrays of values, numbers for ints and doubles). */
export type ReceivedValue = string | number | boolean | ReceivedValue[] | null;

/** One span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 3 client. */
  kind: number;
  attributes: Record<string, ReceivedValue>;
  events: { name: string; attributes: Record<string, ReceivedValue> }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  resource: Record<string, ReceivedValue>;
  scope: string;
}

/** One export request as received. */
export interface ReceivedRequest {
  path: string;
  contentType: string;
  headers: IncomingMessage["headers"];
  spans: ReceivedSpan[];
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Its base URL (`http://127.0.0.1:PORT`): the value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  requests: ReceivedRequest[];
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

let requestType: protobuf.Type | undefined;
function exportRequestType(): protobuf.Type {
  if (requestType !== undefined) return requestType;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
  requestType = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
  return requestType;
}

type Json = Record<string, unknown>;
const asArray = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

function decodeValue(any: unknown): ReceivedValue {
  const value = (any ?? {}) as Json;
  if (typeof value.stringValue === "string") return value.stringValue;
  if (typeof value.boolValue === "boolean") return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.arrayValue !== undefined) return asArray((value.arrayValue as Json).values).map(decodeValue);
  return null;
}

function attributesOf(list: unknown): Record<string, ReceivedValue> {
  return Object.fromEntries(asArray(list).map((kv) => [String(kv.key), decodeValue(kv.value)]));
}

/** Ids arrive as hex strings in JSON and as bytes (base64 from protobufjs's toObject) in protobuf. */
function hexOf(id: unknown, binary: boolean): string {
  if (typeof id !== "string" || id === "") return "";
  return binary ? Buffer.from(id, "base64").toString("hex") : id.toLowerCase();
}

function spansOf(body: Json, binary: boolean): ReceivedSpan[] {
  return asArray(body.resourceSpans).flatMap((resourceSpans) => {
    const resource = attributesOf((resourceSpans.resource as Json | undefined)?.attributes);
    return asArray(resourceSpans.scopeSpans).flatMap((scopeSpans) =>
      asArray(scopeSpans.spans).map((span): ReceivedSpan => {
        const status = (span.status ?? {}) as Json;
        return {
          traceId: hexOf(span.traceId, binary),
          spanId: hexOf(span.spanId, binary),
          parentSpanId: hexOf(span.parentSpanId, binary),
          name: String(span.name),
          kind: Number(span.kind ?? 0),
          attributes: attributesOf(span.attributes),
          events: asArray(span.events).map((event) => ({
            name: String(event.name),
            attributes: attributesOf(event.attributes),
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === "string" && status.message !== "" ? { message: status.message } : {}),
          },
          resource,
          scope: String((scopeSpans.scope as Json | undefined)?.name ?? ""),
        };
      }),
    );
  });
}

function decode(contentType: string, bytes: Buffer): ReceivedSpan[] {
  if (contentType.startsWith("application/json")) return spansOf(JSON.parse(bytes.toString("utf8")) as Json, false);
  const type = exportRequestType();
  const message = type.toObject(type.decode(bytes), { longs: String, bytes: String, enums: Number });
  return spansOf(message as Json, true);
}

/**
 * Starts a receiver on a free loopback port. `silent`: requests are read and recorded but never
 * answered (the connection stays open until `close`).
 */
export async function startOtlpReceiver(options: { silent?: boolean } = {}): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      const bytes = request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
      const contentType = request.headers["content-type"] ?? "";
      requests.push({
        path: request.url ?? "",
        contentType,
        headers: request.headers,
        // The same collector also takes metrics (and logs): only trace exports are decoded.
        spans: /\/v1\/(metrics|logs)$/.test(request.url ?? "") ? [] : decode(contentType, bytes),
      });
      if (options.silent === true) return;
      const json = contentType.startsWith("application/json");
      response.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
      // An empty ExportTraceServiceResponse: zero bytes in protobuf, {} in JSON.
      response.end(json ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((request) => request.spans),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * What the standard OpenTelemetry variables ask for, read and checked without loading any
 * OpenTelemetry module: a host calls this on every start, and with nothing configured it must
 * cost nothing. Every value given is checked, and every problem is reported at once as a
 * `ConfigError` naming the variable (the specification lets an SDK ignore a bad value with a
 * warning; a host that silently exports nothing, or to the wrong place, is worse).
 */
import { ConfigError, type ConfigProblem } from "@sema-agent/core/protocol";
import { parseKeyValueList } from "./key-value-list.ts";

/** The OTLP encodings Sema exports: both over HTTP (gRPC is not bundled). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** The samplers `OTEL_TRACES_SAMPLER` may name (the specification's, less the remote ones). */
export type SamplerName =
  | "always_on"
  | "always_off"
  | "traceidratio"
  | "parentbased_always_on"
  | "parentbased_always_off"
  | "parentbased_traceidratio";

/** Where the traces go and how, as read from the environment (and a command's flags). */
export interface OtlpTraceConfig {
  /** The full URL spans are posted to (`…/v1/traces`). */
  url: string;
  protocol: OtlpProtocol;
  /** Sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, then the traces-only ones). */
  headers: Record<string, string>;
  /** How long one export may take, retries included (`OTEL_EXPORTER_OTLP_TIMEOUT`, default 10 s). */
  timeoutMs: number;
  compression: "gzip" | "none";
  /** `OTEL_SERVICE_NAME`, when set. */
  serviceName?: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`. */
  resourceAttributes: Record<string, string>;
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`) and its ratio (`_ARG`, default 1). */
  sampler: { name: SamplerName; ratio: number };
  /**
   * PEM files for TLS, by the variable that named them: the collector's root certificate
   * (`OTEL_EXPORTER_OTLP_CERTIFICATE`), and a client certificate and key for mutual TLS
   * (`_CLIENT_CERTIFICATE`, `_CLIENT_KEY`); each also in its `_TRACES_` form, which wins.
   */
  tls: { [K in "ca" | "cert" | "key"]?: { variable: string; path: string } };
}

/** What a command's flags set instead of the environment (`sema trace --endpoint --protocol`). */
export interface OtlpOverrides {
  /** A collector's URL: with no path, `/v1/traces` is added; with one, it is used as it is. */
  endpoint?: string;
  protocol?: string;
}

/** The variables read, for the documentation and for messages. */
export const OTEL_VARIABLES = [
  "OTEL_SDK_DISABLED",
  "OTEL_TRACES_EXPORTER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_EXPORTER_OTLP_TIMEOUT",
  "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
  "OTEL_EXPORTER_OTLP_COMPRESSION",
  "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
  "OTEL_EXPORTER_OTLP_CERTIFICATE",
  "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
  "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
  "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE",
  "OTEL_EXPORTER_OTLP_CLIENT_KEY",
  "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY",
  "OTEL_SERVICE_NAME",
  "OTEL_RESOURCE_ATTRIBUTES",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
] as const;

type Env = Readonly<Record<string, string | undefined>>;

const SAMPLERS: readonly SamplerName[] = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
];
const DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces";
const DEFAULT_TIMEOUT_MS = 10_000;

/** An empty variable counts as unset, as the specification says. */
function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function checkUrl(path: string, text: string, problems: ConfigProblem[]): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    problems.push({ path, message: `is "${text}", not a URL: give one such as http://localhost:4318` });
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push({ path, message: `is "${text}": Sema exports over HTTP, so give an http:// or https:// URL` });
    return undefined;
  }
  return url;
}

/** `base` with `/v1/traces` appended to its path, as the specification builds a signal's URL. */
function signalUrl(base: URL): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  return url.toString();
}

function protocolOf(path: string, text: string, problems: ConfigProblem[]): OtlpProtocol {
  if (text === "http/protobuf" || text === "http/json") return text;
  problems.push({
    path,
    message:
      text === "grpc"
        ? 'is "grpc": Sema exports OTLP over HTTP only; use http/protobuf (the collector\'s port 4318) or http/json'
        : `is "${text}": use http/protobuf (the default) or http/json`,
  });
  return "http/protobuf";
}

function booleanOf(env: Env, name: string, problems: ConfigProblem[]): boolean {
  const value = read(env, name)?.toLowerCase();
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  problems.push({ path: name, message: `is "${value}": use true or false` });
  return false;
}

function milliseconds(env: Env, names: readonly string[], problems: ConfigProblem[]): number {
  for (const name of names) {
    const value = read(env, name);
    if (value === undefined) continue;
    const ms = Number(value);
    if (Number.isInteger(ms) && ms > 0) return ms;
    problems.push({ path: name, message: `is "${value}": give a whole number of milliseconds above 0` });
    return DEFAULT_TIMEOUT_MS;
  }
  return DEFAULT_TIMEOUT_MS;
}

function list(env: Env, name: string, problems: ConfigProblem[]): Record<string, string> {
  const value = read(env, name);
  if (value === undefined) return {};
  const parsed = parseKeyValueList(value);
  if (parsed.ok) return parsed.entries;
  problems.push({ path: name, message: parsed.problem });
  return {};
}

function samplerOf(env: Env, problems: ConfigProblem[]): OtlpTraceConfig["sampler"] {
  const text = read(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  const name = SAMPLERS.find((known) => known === text);
  if (name === undefined) {
    problems.push({
      path: "OTEL_TRACES_SAMPLER",
      message: `is "${text}": use one of ${SAMPLERS.join(", ")} (remote samplers are not supported)`,
    });
    return { name: "parentbased_always_on", ratio: 1 };
  }
  const arg = read(env, "OTEL_TRACES_SAMPLER_ARG");
  // The argument means something to the ratio samplers only; the others ignore it, as specified.
  if (arg === undefined || !name.endsWith("traceidratio")) return { name, ratio: 1 };
  const ratio = Number(arg);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return { name, ratio };
  problems.push({ path: "OTEL_TRACES_SAMPLER_ARG", message: `is "${arg}": give a ratio from 0 to 1, e.g. 0.25` });
  return { name, ratio: 1 };
}

function compressionOf(env: Env, problems: ConfigProblem[]): "gzip" | "none" {
  for (const name of ["OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION"]) {
    const value = read(env, name)?.toLowerCase();
    if (value === undefined) continue;
    if (value === "gzip" || value === "none") return value;
    problems.push({ path: name, message: `is "${value}": use gzip or none` });
    return "none";
  }
  return "none";
}

function tlsOf(env: Env): OtlpTraceConfig["tls"] {
  const tls: OtlpTraceConfig["tls"] = {};
  for (const [key, suffix] of [
    ["ca", "CERTIFICATE"],
    ["cert", "CLIENT_CERTIFICATE"],
    ["key", "CLIENT_KEY"],
  ] as const) {
    for (const variable of [`OTEL_EXPORTER_OTLP_TRACES_${suffix}`, `OTEL_EXPORTER_OTLP_${suffix}`]) {
      const path = read(env, variable);
      if (path === undefined) continue;
      tls[key] = { variable, path };
      break;
    }
  }
  return tls;
}

/** The URL to export to, or undefined when nothing asks for an export. */
function urlOf(env: Env, overrides: OtlpOverrides, explicitOtlp: boolean, problems: ConfigProblem[]) {
  if (overrides.endpoint !== undefined) {
    const url = checkUrl("endpoint", overrides.endpoint, problems);
    if (url === undefined) return "";
    return url.pathname === "/" || url.pathname === "" ? signalUrl(url) : url.toString();
  }
  const traces = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (traces !== undefined) return checkUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", traces, problems)?.toString() ?? "";
  const base = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (base !== undefined) {
    const url = checkUrl("OTEL_EXPORTER_OTLP_ENDPOINT", base, problems);
    return url === undefined ? "" : signalUrl(url);
  }
  // `OTEL_TRACES_EXPORTER=otlp` alone: the specification's default collector on this machine.
  return explicitOtlp ? DEFAULT_ENDPOINT : undefined;
}

/**
 * Reads the variables (and `overrides`): undefined when no export is asked for — no endpoint
 * variable, no flag and no `OTEL_TRACES_EXPORTER=otlp` — or when it is turned off
 * (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`; a flag still exports). Throws a
 * `ConfigError` naming every variable whose value is wrong.
 */
export function readOtlpConfig(env: Env, overrides: OtlpOverrides = {}): OtlpTraceConfig | undefined {
  const problems: ConfigProblem[] = [];
  const fail = (): never => {
    throw new ConfigError("the OpenTelemetry settings", problems);
  };
  const disabled = booleanOf(env, "OTEL_SDK_DISABLED", problems);
  const exporters = (read(env, "OTEL_TRACES_EXPORTER") ?? "")
    .toLowerCase()
    .split(",")
    .map((item) => item.trim());
  const named = exporters.filter((item) => item !== "");
  const unknown = named.filter((item) => item !== "otlp" && item !== "none");
  if (unknown.length > 0 || (named.includes("none") && named.includes("otlp")))
    problems.push({
      path: "OTEL_TRACES_EXPORTER",
      message: `is "${named.join(",")}": Sema exports traces over OTLP; use otlp, or none to turn it off`,
    });
  if (problems.length > 0) fail();
  const flagged = overrides.endpoint !== undefined;
  if (!flagged && (disabled || named.includes("none"))) return undefined;
  const url = urlOf(env, overrides, named.includes("otlp"), problems);
  if (url === undefined && problems.length === 0) return undefined;
  const protocols: [string, string | undefined][] = [
    ["protocol", overrides.protocol],
    ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", read(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")],
    ["OTEL_EXPORTER_OTLP_PROTOCOL", read(env, "OTEL_EXPORTER_OTLP_PROTOCOL")],
  ];
  const [where, given] = protocols.find(([, value]) => value !== undefined) ?? ["", undefined];
  const protocol = given === undefined ? "http/protobuf" : protocolOf(where, given, problems);
  const headers = {
    ...list(env, "OTEL_EXPORTER_OTLP_HEADERS", problems),
    ...list(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", problems),
  };
  const timeoutMs = milliseconds(env, ["OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"], problems);
  const compression = compressionOf(env, problems);
  const resourceAttributes = list(env, "OTEL_RESOURCE_ATTRIBUTES", problems);
  const sampler = samplerOf(env, problems);
  if (problems.length > 0 || url === undefined) return fail();
  const serviceName = read(env, "OTEL_SERVICE_NAME");
  return {
    url,
    protocol,
    headers,
    timeoutMs,
    compression,
    ...(serviceName === undefined ? {} : { serviceName }),
    resourceAttributes,
    sampler,
    tls: tlsOf(env),
  };
}

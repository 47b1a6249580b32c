// What the standard variables ask for: nothing configured is undefined, the URL follows the
// specification's rules, a flag wins, and every wrong value is named in one ConfigError.
import { readFileSync } from "node:fs";
import { ConfigError } from "@sema-agent/core/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseKeyValueList } from "./key-value-list.ts";
import { OTEL_VARIABLES, readOtlpConfig } from "./otlp-config.ts";

const BASE = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };

function problemsOf(env: Record<string, string>, overrides = {}): string[] {
  try {
    readOtlpConfig(env, overrides);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((problem) => `${problem.path} ${problem.message}`);
  }
  throw new Error("no ConfigError");
}

describe("readOtlpConfig", () => {
  it("is undefined with nothing configured, empty values counting as unset", () => {
    expect(readOtlpConfig({})).toBeUndefined();
    expect(readOtlpConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "", OTEL_SERVICE_NAME: "api", PATH: "/bin" })).toBeUndefined();
  });

  it("has the defaults: protobuf, 10 s, no compression, parentbased_always_on", () => {
    expect(readOtlpConfig(BASE)).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/protobuf",
      headers: {},
      timeoutMs: 10_000,
      compression: "none",
      resourceAttributes: {},
      sampler: { name: "parentbased_always_on", ratio: 1 },
      tls: {},
    });
  });

  it("appends /v1/traces to the base endpoint and takes the traces endpoint as it is", () => {
    const url = (env: Record<string, string>, overrides = {}) => readOtlpConfig(env, overrides)?.url;
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/" })).toBe("https://otel.example/v1/traces");
    expect(url({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://h:4318/otlp" })).toBe("http://h:4318/otlp/v1/traces");
    expect(url({ ...BASE, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/custom" })).toBe("http://t:9/custom");
    // A flag: with no path the signal's path is added; with one it is used as it is.
    expect(url(BASE, { endpoint: "http://flag:4318" })).toBe("http://flag:4318/v1/traces");
    expect(url({}, { endpoint: "http://flag:4318/in/traces" })).toBe("http://flag:4318/in/traces");
    // OTEL_TRACES_EXPORTER=otlp alone: the specification's default on this machine.
    expect(url({ OTEL_TRACES_EXPORTER: "otlp" })).toBe("http://localhost:4318/v1/traces");
  });

  it("reads the traces-only variables over the general ones", () => {
    const config = readOtlpConfig({
      ...BASE,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "a=1,b=2",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=3, api-key = x%20y ",
      OTEL_EXPORTER_OTLP_TIMEOUT: "5000",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "2500",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_SERVICE_NAME: "billing",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=prod,service.version=1.2",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      OTEL_EXPORTER_OTLP_CERTIFICATE: "/etc/ca.pem",
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: "/etc/traces-ca.pem",
      OTEL_EXPORTER_OTLP_CLIENT_KEY: "/etc/key.pem",
    });
    expect(config).toEqual({
      url: "http://collector:4318/v1/traces",
      protocol: "http/json",
      headers: { a: "1", b: "3", "api-key": "x y" },
      timeoutMs: 2500,
      compression: "gzip",
      serviceName: "billing",
      resourceAttributes: { "deployment.environment.name": "prod", "service.version": "1.2" },
      sampler: { name: "parentbased_traceidratio", ratio: 0.25 },
      tls: {
        ca: { variable: "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", path: "/etc/traces-ca.pem" },
        key: { variable: "OTEL_EXPORTER_OTLP_CLIENT_KEY", path: "/etc/key.pem" },
      },
    });
    expect(
      readOtlpConfig({ ...BASE, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, { protocol: "http/protobuf" })?.protocol,
    ).toBe("http/protobuf");
  });

  it("is turned off by OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, unless a flag names an endpoint", () => {
    expect(readOtlpConfig({ ...BASE, OTEL_SDK_DISABLED: "TRUE" })).toBeUndefined();
    expect(readOtlpConfig({ ...BASE, OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
    expect(readOtlpConfig({ ...BASE, OTEL_SDK_DISABLED: "false" })?.url).toBe("http://collector:4318/v1/traces");
    expect(readOtlpConfig({ OTEL_SDK_DISABLED: "true" }, { endpoint: "http://flag:1" })?.url).toBe(
      "http://flag:1/v1/traces",
    );
  });

  it("refuses grpc with a way out", () => {
    expect(problemsOf({ ...BASE, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL is "grpc": Sema exports OTLP over HTTP only; use http/protobuf (the collector\'s port 4318) or http/json',
    ]);
    expect(problemsOf(BASE, { protocol: "grpc" })[0]).toMatch(/^protocol is "grpc"/);
  });

  it("names every wrong value at once", () => {
    const problems = problemsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "thrift",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization",
      OTEL_EXPORTER_OTLP_TIMEOUT: "soon",
      OTEL_EXPORTER_OTLP_COMPRESSION: "br",
      OTEL_RESOURCE_ATTRIBUTES: "=x",
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "2",
    });
    expect(problems.map((problem) => problem.split(" ")[0])).toEqual([
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "OTEL_EXPORTER_OTLP_HEADERS",
      "OTEL_EXPORTER_OTLP_TIMEOUT",
      "OTEL_EXPORTER_OTLP_COMPRESSION",
      "OTEL_RESOURCE_ATTRIBUTES",
      "OTEL_TRACES_SAMPLER_ARG",
    ]);
    expect(problemsOf({ ...BASE, OTEL_TRACES_SAMPLER: "jaeger_remote" })[0]).toMatch(
      /remote samplers are not supported/,
    );
    expect(problemsOf({ ...BASE, OTEL_SDK_DISABLED: "yes" })).toEqual([
      'OTEL_SDK_DISABLED is "yes": use true or false',
    ]);
    expect(problemsOf({ OTEL_TRACES_EXPORTER: "console" })[0]).toMatch(/^OTEL_TRACES_EXPORTER is "console"/);
    expect(problemsOf({ OTEL_TRACES_EXPORTER: "otlp,none" })[0]).toMatch(/^OTEL_TRACES_EXPORTER/);
    expect(problemsOf({}, { endpoint: "ftp://x" })[0]).toMatch(/^endpoint is "ftp:\/\/x"/);
  });

  it("ignores the sampler argument where it means nothing, as specified", () => {
    expect(
      readOtlpConfig({ ...BASE, OTEL_TRACES_SAMPLER: "always_on", OTEL_TRACES_SAMPLER_ARG: "x" })?.sampler,
    ).toEqual({
      name: "always_on",
      ratio: 1,
    });
  });
});

describe("OTEL_VARIABLES", () => {
  it("lists every variable readOtlpConfig reads, and the guide names each (its _TRACES_ form aside)", () => {
    const asked = new Set<string>();
    const env = new Proxy({ ...BASE, OTEL_TRACES_SAMPLER: "traceidratio" } as Record<string, string | undefined>, {
      get(target, name) {
        if (typeof name === "string") asked.add(name);
        return Reflect.get(target, name);
      },
    });
    readOtlpConfig(env);
    expect([...asked].filter((name) => !(OTEL_VARIABLES as readonly string[]).includes(name))).toEqual([]);
    expect(asked.size).toBe(OTEL_VARIABLES.length);
    const guide = readFileSync(new URL("../../../../docs/guide/observability.md", import.meta.url), "utf8");
    for (const name of OTEL_VARIABLES)
      expect(guide, name).toContain(name.replace("OTEL_EXPORTER_OTLP_TRACES_", "OTEL_EXPORTER_OTLP_"));
  });
});

describe("parseKeyValueList", () => {
  const key = fc.stringMatching(/^[A-Za-z_][\w.-]{0,15}$/);
  it("reads back any list written the specified way (percent-encoded values)", () => {
    fc.assert(
      fc.property(fc.dictionary(key, fc.string()), (entries) => {
        const text = Object.entries(entries)
          .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
          .join(" , ");
        expect(parseKeyValueList(text)).toEqual({ ok: true, entries });
      }),
    );
  });

  it("never throws: any text is a list or one problem", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const parsed = parseKeyValueList(text);
        expect(parsed.ok || parsed.problem.length > 0).toBe(true);
      }),
    );
  });

  it("keeps __proto__ as an entry like any other", () => {
    const parsed = parseKeyValueList("__proto__=x");
    expect(parsed.ok && Object.hasOwn(parsed.entries, "__proto__")).toBe(true);
  });
});

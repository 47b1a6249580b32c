/**
 * The `key=value,key=value` lists of `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_EXPORTER_OTLP_HEADERS`
 * (the W3C Baggage form the OpenTelemetry specification names: values percent-encoded, blanks
 * around each part ignored). Unlike the SDK's own reader, a malformed entry is a problem to
 * report, not an entry to drop silently.
 */

/** The list parsed, or what is wrong with it. */
export type KeyValueList = { ok: true; entries: Record<string, string> } | { ok: false; problem: string };

/** Parses `text`; the last of two entries with one key wins, as in the SDK. */
export function parseKeyValueList(text: string): KeyValueList {
  // A map, then own properties: a key such as __proto__ is an entry like any other.
  const entries = new Map<string, string>();
  for (const raw of text.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const equals = item.indexOf("=");
    if (equals < 0) return { ok: false, problem: `has "${item}" without "=": write key=value, separated by commas` };
    const key = item.slice(0, equals).trim();
    if (key === "") return { ok: false, problem: `has "${item}" without a key: write key=value` };
    let value: string;
    try {
      value = decodeURIComponent(item.slice(equals + 1).trim());
    } catch {
      return { ok: false, problem: `has "${item}" whose value is not percent-encoded properly` };
    }
    entries.set(key, value);
  }
  return { ok: true, entries: Object.fromEntries(entries) };
}

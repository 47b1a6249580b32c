/**
 * The OTLP exporter's sockets never keep the process alive (otlp-exporter.ts), so something must
 * while an export is awaited — a `sema trace` has nothing else running, and Node would end it
 * mid-export. This wrapper holds the process (one referenced timer) while any export is under way,
 * until `release`: a shutdown that gave up releases it, and then nothing waits for the collector.
 */
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";

/** Holds the process open while an export of `inner` is under way, until released. */
export class HeldExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  #underWay = 0;
  #hold: ReturnType<typeof setInterval> | undefined;
  #released = false;

  constructor(inner: SpanExporter) {
    this.#inner = inner;
  }

  /** Whether the process is held now (an export is under way and it was not released). */
  get holding(): boolean {
    return this.#hold !== undefined;
  }

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter["export"]>[1]): void {
    this.#underWay++;
    if (!this.#released) this.#hold ??= setInterval(() => {}, 2 ** 31 - 1);
    this.#inner.export(spans, (result) => {
      this.#underWay--;
      if (this.#underWay === 0) this.#let();
      resultCallback(result);
    });
  }

  /** From now on no export holds the process, the ones under way included. */
  release(): void {
    this.#released = true;
    this.#let();
  }

  #let(): void {
    if (this.#hold !== undefined) clearInterval(this.#hold);
    this.#hold = undefined;
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

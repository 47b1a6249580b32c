/** The headline figures docs/guide/benchmarks.md quotes, each from the latest run that has it. */
import type { LoadedResults } from "./results.ts";
import { latestInjection, percent, SEMA } from "./results-benches.ts";
import { formatFigure, mark, markdownTable, required, rowOf, runsOf } from "./results-format.ts";
import type { MeasureRow } from "./results-schema.ts";

// ---------------------------------------------------------------- the docs' headline figures

/** The median (or the range, if the run kept only that) with its unit and mark: "0.018 ms ✓", "2.04× ✗". */
function withUnit(row: MeasureRow | undefined): string {
  if (row === undefined) return "—";
  const unit = row.unit === "×" || row.unit === "ratio" ? "×" : row.unit === "%" ? " %" : ` ${row.unit}`;
  const value =
    row.median === undefined
      ? `${formatFigure(row.min ?? Number.NaN)} – ${formatFigure(row.max ?? Number.NaN)}`
      : formatFigure(row.median);
  return `${value}${unit}${mark(row)}`;
}

/** A figure of the run quoted: `f` with its unit, `n` the number alone. */
interface Figures {
  f(subject: string, metric: string, workload?: string): string;
  n(subject: string, metric: string, workload?: string): string;
}

interface Headline {
  bench: string;
  command: string;
  /** The latest run that has this row is the one quoted. */
  needs: [subject: string, metric: string, workload?: string];
  text(figures: Figures): string;
}

const HEADLINES: Headline[] = [
  {
    bench: "harness",
    command: "npm run bench:harness",
    needs: ["MemoryStore, 1,000 turns", "wall per turn"],
    text: ({ f }) =>
      `Wall per model turn, 1,000-turn task: MemoryStore ${f("MemoryStore, 1,000 turns", "wall per turn")}, SqliteStore ${f("SqliteStore (file), 1,000 turns", "wall per turn")} (10,000 turns: ${f("MemoryStore, 10,000 turns", "wall per turn")}, ${f("SqliteStore (file), 10,000 turns", "wall per turn")}); stored per turn ${f("MemoryStore, 1,000 turns", "stored per turn")}, ${f("SqliteStore (file), 1,000 turns", "stored per turn")}`,
  },
  {
    bench: "otel",
    command: "npm run bench:otel",
    needs: ["tracing on ÷ off", "CPU per turn"],
    text: ({ f }) =>
      `CPU per turn over no tracing: \`traceEmit\` ${f("tracing on ÷ off", "CPU per turn")}, an exporter reading every field ${f("tracing, every field read ÷ off", "CPU per turn")}, metrics ${f("metrics on ÷ off", "CPU per turn")}`,
  },
  {
    bench: "peers",
    command: "npm run bench:peers",
    needs: ["OpenAI Agents run()", "wall per turn", "turns-200"],
    text: ({ f }) =>
      `Wall per turn, 200 turns × 1 tool call: Sema ${f(SEMA, "wall per turn", "turns-200")}, pi ${f("pi agentLoop", "wall per turn", "turns-200")}, AI SDK ${f("AI SDK ToolLoopAgent", "wall per turn", "turns-200")}, LangGraph ${f("LangGraph ReAct", "wall per turn", "turns-200")}, OpenAI Agents ${f("OpenAI Agents run()", "wall per turn", "turns-200")}`,
  },
  {
    bench: "peers",
    command: "npm run bench:peers",
    needs: ["LangGraph ReAct", "stored per turn", "durable-1000"],
    text: ({ f }) =>
      `Durable, 1,000 turns: Sema on SQLite ${f(SEMA, "wall per turn", "durable-1000")} and ${f(SEMA, "stored per turn", "durable-1000")} per turn, LangGraph + \`SqliteSaver\` ${f("LangGraph ReAct", "wall per turn", "durable-1000")} and ${f("LangGraph ReAct", "stored per turn", "durable-1000")}; resume ${f(SEMA, "resume: open → first model call", "resume")} against ${f("LangGraph ReAct", "resume: open → first model call", "resume")}`,
  },
  {
    bench: "store",
    command: "npm run bench:store",
    needs: ["SqliteStore (file)", "single-event appends, 20,000 transactions"],
    text: ({ f }) =>
      `SqliteStore: ${f("SqliteStore (file)", "single-event appends, 20,000 transactions")} one event a transaction, ${f("SqliteStore (file)", "batched appends, 1,000 × 100 events")} in batches of 100; ${f("SqliteStore (file)", "on disk per event")} on disk per event`,
  },
  {
    bench: "fold",
    command: "npm run bench:fold",
    needs: ["fold", "100,000 events from scratch"],
    text: ({ f }) =>
      `100,000 events from scratch ${f("fold", "100,000 events from scratch")}; from a snapshot 100 events back ${f("fold", "from a snapshot 100 events back (state in memory)")}`,
  },
  {
    bench: "fixed-cost",
    command: "npm run bench:fixed-cost",
    needs: ["SqliteStore (file)", "SQL statements", "1 turn, no tool"],
    text: ({ n }) =>
      `A 1-turn task: ${n("SqliteStore (file)", "appends", "1 turn, no tool")} appends; ${n("SqliteStore (file)", "SQL statements", "1 turn, no tool")} SQL statements on SQLite, ${n("PostgresStore", "SQL statements", "1 turn, no tool")} on PostgreSQL`,
  },
  {
    bench: "live",
    command: "npm run bench:live",
    // A run of every store (issue 36's people runs time SQLite alone, on a loaded machine).
    needs: ["MemoryStore, N = 10000", "wall ÷ model time (3 s)"],
    text: ({ f }) =>
      `10,000 live tasks in one process, SQLite with group commit: ${f("SqliteStore (file), group commit on, N = 10000", "wall ÷ model time (3 s)")} the model's time, event-loop lag p99 ${f("SqliteStore (file), group commit on, N = 10000", "event-loop lag p99")}, RSS ${f("SqliteStore (file), group commit on, N = 10000", "peak RSS")}`,
  },
  {
    bench: "scale-out",
    command: "npm run bench:scale-out",
    needs: ["PostgresStore", "single-event appends (5,000)"],
    text: ({ f }) =>
      `PostgresStore ${f("PostgresStore", "single-event appends (5,000)")} one event a transaction (SQLite ${f("SqliteStore (file)", "single-event appends (5,000)")}); a steer from an API node applied on a worker node, p50 ${f("PostgresStore", "steer POST on A → applied on B, p50")} (SQLite ${f("SqliteStore (file)", "steer POST on A → applied on B, p50")})`,
  },
  {
    bench: "sse",
    command: "npm run bench:sse",
    needs: ["SSE fan-out, one every 10 ms", "append → receipt, p99"],
    text: ({ f }) =>
      `1,000 subscribers, one event every 10 ms: ${f("SSE fan-out, one every 10 ms", "events delivered per second (all subscribers)")} delivered, p99 ${f("SSE fan-out, one every 10 ms", "append → receipt, p99")} (target ≤ 20 ms); burst ${f("SSE fan-out, burst", "events delivered per second (all subscribers)")}`,
  },
  {
    bench: "sse-slow",
    command: "npm run bench:sse-slow",
    needs: ["server RSS", "growth"],
    text: ({ f }) =>
      `60 clients that never read a 100 MB stream: server RSS +${f("server RSS", "growth")}, slowest bystander GET ${f("bystander GET /v1/tasks/{id}", "slowest")}`,
  },
  {
    bench: "task-get",
    command: "npm run bench:task-get",
    needs: ["GET tiny task", "CPU per GET"],
    text: ({ f }) =>
      `CPU per \`GET /v1/tasks/{id}\`: ${f("GET tiny task", "CPU per GET")} for a tiny task, ${f("GET 50 MB-log task", "CPU per GET")} with a 50 MB log`,
  },
  {
    bench: "task-get-serve",
    command: "npm run task-get-serve -w @sema-agent/bench",
    needs: ["sema serve, 50 MB-log task", "server CPU per GET"],
    text: ({ f }) =>
      `A real \`sema serve\`: ${f("sema serve, tiny task", "server CPU per GET")} server CPU per GET of a tiny task, ${f("sema serve, 50 MB-log task", "server CPU per GET")} with a 50 MB log`,
  },
  {
    bench: "fair-share-serve",
    command: "npm run fair-share-serve -w @sema-agent/bench",
    needs: ["B's task, 60 of A's queued ahead of it", "creation → completed"],
    text: ({ f }) =>
      `One principal's task behind another's 60: created → completed in ${f("B's task, 60 of A's queued ahead of it", "creation → completed")}`,
  },
  {
    bench: "soak",
    command: "npm run bench:soak",
    needs: ["sema serve (SQLite)", "RSS growth under the load"],
    text: ({ f }) =>
      `Everything at once: RSS +${f("sema serve (SQLite)", "RSS growth under the load")}, bystander GET p99 ${f("sema serve (SQLite)", "bystander GET p99")}`,
  },
  {
    bench: "mcp",
    command: "npm run bench:mcp",
    needs: ["stdio (sema mcp)", "run_default round trip p50"],
    text: ({ f }) =>
      `A whole task per \`run_default\` call, p50: stdio ${f("stdio (sema mcp)", "run_default round trip p50")}, Streamable HTTP ${f("Streamable HTTP (/mcp of serve)", "run_default round trip p50")}`,
  },
  {
    bench: "a2a",
    command: "npm run bench:a2a",
    needs: ["A2A ÷ /v1", "completion p50 ratio"],
    text: ({ f }) =>
      `A2A \`SendStreamingMessage\` completes in ${f("A2A ÷ /v1", "completion p50 ratio")} the time of \`/v1\`'s create-then-stream; 100 concurrent streams ${f("100 concurrent A2A streams", "tasks/s")}`,
  },
  {
    bench: "evals",
    command: "npm run bench:evals",
    needs: ["MemoryStore", "runExperiment ÷ direct, wall time, concurrency 50"],
    text: ({ f }) =>
      `\`runExperiment\` over running the same 200 cases directly, 50 at once: ${f("MemoryStore", "runExperiment ÷ direct, wall time, concurrency 50")} in memory, ${f("SqliteStore (file)", "runExperiment ÷ direct, wall time, concurrency 50")} on SQLite, ${f("PostgresStore", "runExperiment ÷ direct, wall time, concurrency 50")} on PostgreSQL; ${f("SqliteStore (file)", "runExperiment, 200 cases, concurrency 50")} on SQLite`,
  },
];

/** The headline figures of every benchmark, for docs/guide/benchmarks.md. */
export function headlines(all: readonly LoadedResults[]): string {
  const body = HEADLINES.map((headline) => {
    const [subject, metric, workload] = headline.needs;
    const run = required(
      runsOf(all, headline.bench)
        .filter((each) => rowOf(each, subject, metric, workload) !== undefined)
        .at(-1),
      `${headline.bench} run with ${subject}, ${metric}`,
    );
    const text = headline.text({
      f: (s, m, w) => withUnit(rowOf(run, s, m, w)),
      n: (s, m, w) => {
        const row = rowOf(run, s, m, w);
        return row?.median === undefined ? "—" : formatFigure(row.median);
      },
    });
    return [`\`${headline.command}\``, text, `${run.date.slice(0, 10)}, ${run.commit}`];
  });
  const injection = latestInjection(all);
  const policy = injection.rows.find(
    (row) => row.model === "obedient" && row.condition === "policy" && row.environment === "all",
  );
  if (policy !== undefined)
    body.push([
      "`npm run bench:injection`",
      `Scripted obedient model, framing + provenance policy: attack success ${percent(policy.attackSuccess)}, benign utility ${percent(policy.benignUtility)}`,
      `${injection.date.slice(0, 10)}, ${injection.commit}`,
    ]);
  return markdownTable(["Benchmark", "Headline (median; ✓ / ✗ against the benchmark's target)", "Run"], body);
}

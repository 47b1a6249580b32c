import { type CliIo, reportError } from "./context.ts";

/** The usage text `sema help` prints; docs/reference/cli.md is generated from it (scripts/cli-reference.ts). */
export const USAGE = `Usage: sema <command> [options]   (sema --version: the version)

Commands:
  run "objective" [--model provider:model-id] [--db path] [--attach file …] [--yes] [--stdin-steers]
                      Start a task and stream it. Type a line to steer it; Ctrl-C parks it.
                      --attach adds an image or a file (PNG, JPEG, GIF, WebP, PDF, text) to it.
                      --yes runs the file tools that write without asking first (a call
                      the provenance policy holds is still asked about);
                      --stdin-steers reads steers from stdin even when it is not a terminal
  resume <taskId> [--model provider:model-id] [--yes] [--stdin-steers]
                      Run a parked or crashed task's next leg (on the model it was started with,
                      or the one sema fork --model gave it)
  steer <taskId> "text" [--next] [--policy steer|queue|interrupt|reject]
                      Send input to a task, running or parked, from any terminal
  approve <taskId> <callId> [--deny] [--always] [--reason text]
                      Decide a call waiting for approval (sema run asks at the terminal)
  cancel <taskId> [--reason text]
                      End a task for good (a running leg stops at once)
  tasks [--json] [--principal P]
                      List a principal's tasks, newest first (default principal local;
                      one JSON object a line with --json)
  usage [--json] [--principal P]
                      A principal's tokens and dollars in the last 24 hours and this month,
                      and its active tasks, beside its quotas (sema.config.* and its tokens';
                      default principal local; --json: the object GET /v1/usage answers with)
  events <taskId> [--json] [--follow]
                      Print a task's log (exactly as stored with --json)
  trace <taskId> [--endpoint URL] [--protocol http/protobuf|http/json]
                      Rebuild a task's trace from its log and export it over OTLP (to --endpoint,
                      else the OTEL_EXPORTER_OTLP_* variables); prints the trace id and span count.
                      An endpoint with no path gets /v1/traces
  fork <taskId> [--at seq] [--input seq=text] [--tool-result callId=text] [--model provider:model-id]
       [--json]
                      A new task whose log is the task's up to a step boundary (the last at or
                      before --at; default the whole log), parked: sema resume runs it on.
                      --input replaces a person's input (the seq of its first record) with text,
                      --tool-result a call's recorded result; --model: the model it runs on.
                      Prints the new task id, where the cut moved back to, and the children left
                      running with the source (--json: taskId, sourceTaskId, seq, requestedSeq,
                      detachedChildren)
  replay <taskId> [--yes] [--json]
                      Run a task again, in memory, against a recording of its model and tools,
                      with the agent sema run builds now, and compare each model request with
                      the one recorded. No tool runs, no model is called (no API key needed),
                      nothing is written. Give it the flags the task ran with (--yes: another
                      approval policy). Prints each turn's verdict and the first difference
                      (--json: the report). Exit 0 identical, or unverified (turns recorded
                      without a request digest, said so); 1 diverged
  diff <taskA> <taskB> [--json]
                      Two tasks' trajectories side by side from the steps they share, the first
                      divergence marked (--json: the diff). Exit as diff(1): 0 the same,
                      1 different, 2 trouble (a task not found)
  export <taskId> [--with-children] [--out file [--force]]
                      The task's log (--with-children: and its children's, and theirs) with the
                      bytes of the images and files it references, as one JSON Lines file for
                      sema import: on stdout byte for byte, or written whole to --out (an
                      existing file only with --force)
  import <file|-> [--principal P] [--json]
                      Read an export file (- for stdin) into the store, each task under a new
                      id; prints the ids and how to replay or resume it (--json: the mapping).
                      The whole file is checked first: a file cut short or edited is refused
                      with the line and why (exit 2), and nothing is written. --principal: whose
                      the tasks are (default: the file's)
  prune [--older-than 30d] [--status completed,failed,cancelled] [--principal P] [--dry-run]
        [--archive dir] [--json]
                      Delete finished tasks (with their children) unchanged for an age: the
                      flags' rule, else retention of sema.config.*. --archive writes each to
                      dir as an export file (sema import reads it) before deleting it; never
                      a live task. Prints what it removed and the space given back (SQLite)
  migrate --from <path|url> --to <path|url> [--principal P] [--since 30d|ISO time] [--json]
                      Copy tasks between stores (SQLite files, postgres:// URLs): logs exactly
                      as stored, blobs, A2A push configs, each log verified by its digest.
                      Run it again after a kill: tasks already there are checked, not copied
                      twice. A task with a leg running is refused (exit 1): stop the nodes first
  stats [--principal P] [--largest N] [--json]
                      How big the store is: tasks by status, events, bytes of logs and blobs,
                      the store's size, the N largest tasks (default 10), each principal's share
  serve [--host 127.0.0.1] [--port 7777] [--workers N] [--max-per-principal N] [--lease-ttl ms]
        [--model provider:model-id] [--protocols list|none] [--a2a-push on|off] [--public-url URL]
        [--metrics] [--access-log] [--workspaces dir] [--workspace-per principal|task]
                      The HTTP/SSE API and workers over the store (prints a first token once);
                      --workers 0 for an API-only node. --protocols: which to serve beside /v1,
                      of a2a,mcp,ag-ui,ui-stream,console (default: protocols of the config, else
                      all); none serves /v1 alone. File tools work in a workspace per
                      principal (or task) under --workspaces (default .sema/workspaces).
                      --lease-ttl: how long the tasks of a crashed node wait before another
                      node takes them over (default 30000 ms, at least 300).
                      --a2a-push on|off: deliver A2A push notifications (default on; on one
                      node of several sharing a database, off on the others).
                      --public-url: the origin the A2A agent card advertises (behind a proxy;
                      default the socket's address, never a request's Host header).
                      --metrics: serve GET /metrics (Prometheus text; a token with the metrics role).
                      --access-log: a line per request on stdout: method, path (never its query),
                      status, milliseconds. A port in use exits 2 ("use --port") and spends no token
  mcp [--dir path] [--token T] [--workers N] [--max-per-principal N] [--lease-ttl ms]
      [--workspaces dir] [--workspace-per principal|task]
                      An MCP server on stdio (Claude Desktop, Claude Code, IDEs) over the same
                      store and agents as serve, in --dir (default: the working directory); it
                      acts as the token's principal (--token or SEMA_TOKEN), else as the local
                      principal with every role; the other flags as for serve
  worker [--concurrency N] [--max-per-principal N] [--poll ms] [--lease-ttl ms]
         [--model provider:model-id] [--workspaces dir] [--workspace-per principal|task]
                      A worker-only node: runs the legs of tasks in the shared store; workers
                      share slots fairly between principals, at most N legs of one per process.
                      --poll: how often it looks for runnable tasks (default 500 ms);
                      --lease-ttl as for serve
  token create --principal P [--actor A] [--role approver|supervisor|metrics]
               [--quota name=value …] | revoke <id> | list
                      Bearer tokens for sema serve (only their hashes are stored); --quota
                      (e.g. tokensPerDay=100000) narrows the principal's quotas while it lives
  eval run <dataset|file.jsonl> [--model provider:model-id] [--scorer name…] [--concurrency N]
       [--name label] [--gate "<scorer> >= 0.9"]… [--resume experimentId] [--yes] [--json]
       | dataset add <name> <file.jsonl> | dataset add <name> --from-task <taskId>…
       | dataset list [--json] | dataset export <name> [--version N]
       | compare <experimentA> <experimentB> [--json] | show <experimentId> [--json] | list
       | injection [--model provider:model-id] [--suite mailbox|workspace|banking|limits|all]
                      Evaluations. run: every case of a dataset (saved, or a JSON Lines file:
                      input, expected, inputs, attachments, metadata) as a task of the default
                      agent, scored; prints a row per case and the means. --scorer
                      (repeatable; default exact-match): exact-match, includes, regex,
                      json-match, tool-trajectory, turns=N, tokens=N, cost=USD, latency=MS.
                      Exit 1 when a --gate fails (a CI step). Ctrl-C stops it; --resume
                      <experimentId> goes on where it stopped, no case run twice.
                      dataset: datasets in the store, each add a new version (--from-task: a
                      case of a recorded task: its objective, later inputs, its answer).
                      compare: per scorer the means and their change, then the cases that
                      regressed or improved, worst first. show, list: experiments.
                      injection: the offline prompt-injection suite (attack success, utility
                      and approvals of a naive loop, Sema's framing, and framing + the
                      provenance policy, on scripted models or --model; --suite repeatable,
                      default mailbox, workspace and banking)
  demo                An offline run: a steer, an interrupt, a resume, and the framed inputs

Models: --model or SEMA_MODEL (serve and worker: for the default agent, when no sema.config.*
        names the agents): anthropic:<id> (ANTHROPIC_API_KEY), openai:<id> (OPENAI_API_KEY),
        openai-compatible:<id> (OPENAI_COMPATIBLE_BASE_URL), script:<file.json> (offline).
Store:  --db path or SEMA_DB; default .sema/sema.db in the working directory.
        --store postgres://user@host/db or SEMA_STORE_URL: PostgreSQL, shared by many nodes.
Traces: run, resume, serve and worker export their tasks' traces over OTLP when the standard
        OpenTelemetry variables ask for it (OTEL_EXPORTER_OTLP_ENDPOINT,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp), with
        OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, http/json), OTEL_TRACES_SAMPLER,
        OTEL_SERVICE_NAME and the others listed in the Observability guide.
Metrics: serve, worker and run export metrics over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT (or
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, or OTEL_METRICS_EXPORTER=otlp) is set.
Exit:   0 done; 1 failed (run, resume: the task failed or was cancelled); 2 a usage or configuration
        mistake. run and resume, when the task parks: 3 waiting for approval, 4 the model
        unreachable, 5 a budget or quota reached, 6 interrupted from elsewhere (Ctrl-C here: 130),
        7 waiting for anything else (an input, a timer, a child, an external tool; shut down,
        crashed or forked). replay, diff: as each says.`;

type Command = (argv: string[], io: CliIo) => Promise<number>;

// Each command's modules are loaded only when it runs: `sema worker` never loads the HTTP server
// (Hono), and a command on PostgreSQL never loads node:sqlite (checked by module-graph.test.ts).
export const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./commands/run.ts")).run,
  resume: async () => (await import("./commands/resume.ts")).resume,
  steer: async () => (await import("./commands/steer.ts")).steer,
  approve: async () => (await import("./commands/approve.ts")).approve,
  cancel: async () => (await import("./commands/cancel.ts")).cancel,
  tasks: async () => (await import("./commands/tasks.ts")).tasks,
  usage: async () => (await import("./commands/usage.ts")).usage,
  events: async () => (await import("./commands/events.ts")).events,
  trace: async () => (await import("./commands/trace.ts")).trace,
  fork: async () => (await import("./commands/fork.ts")).fork,
  replay: async () => (await import("./commands/replay.ts")).replay,
  diff: async () => (await import("./commands/diff.ts")).diff,
  export: async () => (await import("./commands/export.ts")).exportCommand,
  import: async () => (await import("./commands/import.ts")).importCommand,
  prune: async () => (await import("./commands/prune.ts")).prune,
  migrate: async () => (await import("./commands/migrate.ts")).migrate,
  stats: async () => (await import("./commands/stats.ts")).stats,
  serve: async () => (await import("./commands/serve.ts")).serve,
  mcp: async () => (await import("./commands/mcp.ts")).mcp,
  worker: async () => (await import("./commands/worker.ts")).worker,
  token: async () => (await import("./commands/token.ts")).token,
  eval: async () => (await import("./commands/eval.ts")).evaluate,
  demo: async () => (await import("./commands/demo.ts")).demo,
};

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout.write(`sema ${(await import("./version.ts")).cliVersion()} (Node.js ${process.versions.node})\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) {
    io.stderr.write(`sema: unknown command "${name}"\n${USAGE}\n`);
    return 2;
  }
  // `sema <command> --help` shows the usage rather than an unknown-option error.
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const command = await load();
    return await command(rest, io);
  } catch (error) {
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") === true) {
      io.stderr.write(`sema: ${error.message}\n`);
      return 2;
    }
    return reportError(io, error);
  }
}

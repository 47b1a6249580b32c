/**
 * A real A2A agent for tests, built from `@a2a-js/sdk`'s own server side: its
 * `DefaultRequestHandler` over an `InMemoryTaskStore`, an `AgentExecutor` the test scripts, and
 * the SDK's express handlers for the agent card, JSON-RPC and HTTP+JSON, on a real socket. It
 * counts what reached it (executions, JSON-RPC methods, REST routes) and the bearer tokens sent.
 */
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type AgentCard, type Message, type Part, Role, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";

/** What a scripted execution can do. */
export interface Turn {
  ctx: RequestContext;
  /** The user message's text. */
  text: string;
  /** Publish a status (with a message of `said`, when given). */
  status(state: TaskState, said?: string): void;
  /** Publish an artifact chunk (`append`: added to the artifact of the same id). */
  artifact(text: string, options?: { id?: string; append?: boolean }): void;
}

/** The agent's behaviour: one call per message received. */
export type Script = (turn: Turn) => Promise<void>;

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

function agentMessage(ctx: RequestContext, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: ctx.contextId,
    taskId: ctx.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export interface RemoteAgentOptions {
  /** Refuse (401) every request without `Authorization: Bearer <token>`. */
  token?: string;
  /** Advertise only this binding. */
  only?: "JSONRPC" | "HTTP+JSON";
  /** Advertise streaming (default true). */
  streaming?: boolean;
  /** JSON-RPC methods answered with A2A's UnsupportedOperationError, as by an agent without them. */
  refuse?: string[];
}

export interface RemoteAgent {
  url: string;
  /** Executions by the message text that started them. */
  executions: string[];
  /** JSON-RPC methods received (`SendStreamingMessage` …) and REST routes (`POST /message:stream` …). */
  calls: string[];
  /** The Authorization header of every request (undefined when absent). */
  authorizations: Array<string | undefined>;
  /** Replace the agent's behaviour. */
  script: Script;
  /** Cut every open JSON-RPC connection (a network failure mid-stream); the tasks go on. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** The default behaviour: work, then answer with an artifact echoing the message. */
export const echo: Script = async (turn) => {
  turn.status(TaskState.TASK_STATE_WORKING, "working on it");
  turn.artifact(`echo: ${turn.text}`);
  turn.status(TaskState.TASK_STATE_COMPLETED);
};

export async function startRemoteAgent(options: RemoteAgentOptions = {}): Promise<RemoteAgent> {
  const app = express();
  const server: Server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const open = new Set<Socket>();
  const agent: RemoteAgent = {
    url,
    executions: [],
    calls: [],
    authorizations: [],
    script: echo,
    dropConnections() {
      for (const socket of open) socket.destroy();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const executor: AgentExecutor = {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const text = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
      agent.executions.push(text);
      // The SDK wants a task (or a message) first on every stream: a new one, or the task continued.
      bus.publish(
        AgentEvent.task(
          ctx.task === undefined
            ? {
                id: ctx.taskId,
                contextId: ctx.contextId,
                status: {
                  state: TaskState.TASK_STATE_SUBMITTED,
                  message: undefined,
                  timestamp: new Date().toISOString(),
                },
                artifacts: [],
                history: [ctx.userMessage],
                metadata: undefined,
              }
            : {
                ...ctx.task,
                status: {
                  state: TaskState.TASK_STATE_WORKING,
                  message: undefined,
                  timestamp: new Date().toISOString(),
                },
              },
        ),
      );
      const turn: Turn = {
        ctx,
        text,
        status(state, said) {
          bus.publish(
            AgentEvent.statusUpdate({
              taskId: ctx.taskId,
              contextId: ctx.contextId,
              status: {
                state,
                message: said === undefined ? undefined : agentMessage(ctx, said),
                timestamp: new Date().toISOString(),
              },
              metadata: undefined,
            }),
          );
        },
        artifact(artifactText, artifactOptions = {}) {
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId: ctx.taskId,
              contextId: ctx.contextId,
              artifact: {
                artifactId: artifactOptions.id ?? "answer",
                name: "answer",
                description: "",
                parts: [textPart(artifactText)],
                metadata: undefined,
                extensions: [],
              },
              append: artifactOptions.append ?? false,
              lastChunk: true,
              metadata: undefined,
            }),
          );
        },
      };
      await agent.script(turn);
      bus.finished();
    },
    async cancelTask() {},
  };
  const interfaces = [
    { url: `${url}/rpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    { url: `${url}/rest`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
  ].filter((i) => options.only === undefined || i.protocolBinding === options.only);
  const card: AgentCard = {
    name: "remote-test-agent",
    description: "A scripted A2A agent for tests",
    version: "1.0.0",
    supportedInterfaces: interfaces,
    provider: undefined,
    capabilities: {
      streaming: options.streaming ?? true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use((req, res, next) => {
    agent.authorizations.push(req.headers.authorization);
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.status(401).json({ error: "unauthorized" });
      return;
    }
    next();
  });
  app.use("/rpc", (req, _res, next) => {
    const socket = req.socket;
    if (!open.has(socket)) {
      open.add(socket);
      socket.once("close", () => open.delete(socket));
    }
    next();
  });
  app.use("/rpc", express.json(), (req, res, next) => {
    const method = (req.body as { method?: unknown } | undefined)?.method;
    if (typeof method === "string") agent.calls.push(method);
    if (typeof method === "string" && options.refuse?.includes(method)) {
      const id = (req.body as { id?: unknown }).id ?? null;
      res.json({ jsonrpc: "2.0", id, error: { code: -32004, message: `${method} is not supported` } });
      return;
    }
    next();
  });
  app.use("/rest", (req, _res, next) => {
    agent.calls.push(`${req.method} ${req.path}`);
    next();
  });
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/rpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return agent;
}

/** A promise a test resolves by hand: the remote agent waits on it mid-task. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Poll `condition` until it holds (real sockets: no fixed sleeps), failing after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

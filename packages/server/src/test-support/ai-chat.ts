/**
 * The AI SDK's own chat client (`AbstractChat` with `DefaultChatTransport`) in Node: the state is
 * a plain array (what `@ai-sdk/react` keeps in React state), so tests drive exactly the client a
 * `useChat` page runs. The base URL can change under it (a server restarted on another port).
 */
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";

class ArrayState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[];

  constructor(messages: UIMessage[]) {
    this.messages = messages;
  }

  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), this.snapshot(message), ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(value: T): T => structuredClone(value);
}

export class TestChat extends AbstractChat<UIMessage> {
  constructor(options: { id: string; base: () => string; token: string; agent?: string; messages?: UIMessage[] }) {
    const path = options.agent === undefined ? "/v1/chat" : `/v1/agents/${options.agent}/chat`;
    super({
      id: options.id,
      state: new ArrayState(options.messages ?? []),
      transport: new DefaultChatTransport({
        api: `http://sema${path}`,
        headers: { authorization: `Bearer ${options.token}` },
        fetch: (url, init) => fetch(String(url).replace("http://sema", options.base()), init),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
  }
}

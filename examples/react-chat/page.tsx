// A chat page written against the AI SDK only: `useChat` with its default transport, pointed at
// Sema's chat endpoint. The chat id is the task's; on load the page reads the transcript and
// resumes a turn under way (`resume: true`), so a reload mid-answer picks the stream up again.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, isToolUIPart, type UIMessage } from "ai";
import { type FormEvent, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const chatId = new URLSearchParams(location.search).get("chat") ?? "react-chat";

function Chat({ initial }: { initial: UIMessage[] }) {
  const { messages, sendMessage, addToolApprovalResponse, status } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    // The page's own server adds the token: it never reaches the browser.
    transport: new DefaultChatTransport({ api: "/v1/chat" }),
  });
  const [draft, setDraft] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === "") return;
    void sendMessage({ text: draft });
    setDraft("");
  };
  const decide = async (id: string, approved: boolean) => {
    await addToolApprovalResponse({ id, approved });
    await sendMessage();
  };
  return (
    <main>
      <p id="status">{status}</p>
      <ol id="messages">
        {messages.map((message) => (
          <li key={message.id} className={message.role}>
            {message.parts.map((part, index) => {
              const key = `${message.id}-${index}`;
              if (part.type === "text") return <p key={key}>{part.text}</p>;
              if (part.type === "data-sema-steer") return <small key={key}>steer {JSON.stringify(part.data)}</small>;
              if (!isToolUIPart(part) || part.type === "dynamic-tool") return null;
              const name = part.type.slice("tool-".length);
              const approval = "approval" in part ? part.approval : undefined;
              return (
                <div key={key} className="tool" data-tool={name} data-state={part.state}>
                  {name} {JSON.stringify(part.input)}
                  {part.state === "approval-requested" && approval !== undefined ? (
                    <>
                      <button type="button" onClick={() => void decide(approval.id, true)}>
                        Approve
                      </button>
                      <button type="button" onClick={() => void decide(approval.id, false)}>
                        Deny
                      </button>
                    </>
                  ) : null}
                </div>
              );
            })}
          </li>
        ))}
      </ol>
      <form onSubmit={submit}>
        <input id="prompt" value={draft} onChange={(event) => setDraft(event.target.value)} />
        <button type="submit">Send</button>
      </form>
    </main>
  );
}

function App() {
  const [initial, setInitial] = useState<UIMessage[] | undefined>(undefined);
  useEffect(() => {
    void fetch(`/v1/chat/${chatId}/messages`).then(async (response) =>
      setInitial(response.ok ? ((await response.json()) as UIMessage[]) : []),
    );
  }, []);
  return initial === undefined ? <p id="status">loading</p> : <Chat initial={initial} />;
}

const root = document.getElementById("root");
if (root !== null) createRoot(root).render(<App />);

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Message, StreamEvent } from '../../client/types.js';
import { client, errorText } from '../api.js';
import { ErrorNote } from '../components/status.js';
import { formatCost, formatTime } from '../format.js';
import { navigate, useLoad, useStream } from '../hooks.js';

function NewConversation() {
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <form
      class="inline-form"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const created = await client.conversations.create(title.trim() ? { title: title.trim() } : {});
          navigate(`#/conversations/${encodeURIComponent(created.id)}`);
        } catch (err) {
          setError(errorText(err));
        }
      }}
    >
      <label>
        New conversation <input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} placeholder="title (optional)" />
      </label>
      <button type="submit">Create</button>
      <ErrorNote error={error} />
    </form>
  );
}

function MessageItem({ message }: { message: Message }) {
  const meta = message.metadata;
  return (
    <li class={`message role-${message.role}${meta.error ? ' failed' : ''}`} data-message-id={message.id} data-role={message.role}>
      <div class="message-head">
        <strong>{message.role}</strong> <span class="muted">{formatTime(message.created_at)}</span>
        {meta.costUsd !== undefined && meta.costUsd !== null ? <span class="muted"> · {formatCost(meta.costUsd)}</span> : null}
        {meta.model ? <span class="muted"> · {meta.model}</span> : null}
        {meta.runId ? (
          <>
            {' · '}
            <a href={`#/runs/${encodeURIComponent(meta.runId)}`}>run</a>
          </>
        ) : null}
      </div>
      <div class="message-body">{message.content}</div>
    </li>
  );
}

function ConversationDetail({ id }: { id: string }) {
  const conversation = useLoad(() => client.conversations.get(id), id);
  const [messages, setMessages] = useState<Message[]>([]);
  const [older, setOlder] = useState<string | null>(null);
  const [pending, setPending] = useState<Record<string, string>>({});
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const end = useRef<HTMLDivElement>(null);
  // Messages whose answer is in (stored, or announced done or failed): nothing is pending for them.
  const answered = useRef(new Set<string>());
  const settle = (replyTos: string[]) => {
    for (const replyTo of replyTos) answered.current.add(replyTo);
    if (replyTos.length > 0) setPending((p) => Object.fromEntries(Object.entries(p).filter(([replyTo]) => !replyTos.includes(replyTo))));
  };

  const add = (more: Message[]) => {
    setMessages((known) => {
      const byId = new Map(known.map((m) => [m.id, m]));
      for (const m of more) byId.set(m.id, m);
      return [...byId.values()].sort((a, b) => a.created_at.localeCompare(b.created_at));
    });
    // A stored answer replaces the text that streamed for it (its `assistant_done` may come later,
    // or not at all to a page that reconnected after it).
    settle(more.map((m) => m.metadata.replyTo).filter((replyTo): replyTo is string => replyTo !== undefined));
  };
  // The newest page of messages; loaded again whenever the stream (re)opens, since a message
  // stored while it was closed (or before it first opened) comes in no replay.
  const loadLatest = () =>
    client.conversations.messages(id).then(
      (page) => {
        add(page.messages);
        setOlder((known) => known ?? page.next_before);
      },
      (e: unknown) => setError(errorText(e)),
    );
  useEffect(() => {
    setMessages([]);
    setPending({});
    setOlder(null);
    void loadLatest();
  }, [id]);
  useEffect(() => end.current?.scrollIntoView({ block: 'nearest' }), [messages.length, pending]);

  const stream = conversation.data?.platform_conversation_id;
  useStream(
    stream,
    (event: StreamEvent) => {
      if ('runId' in event) return;
      if (event.type === 'message') add([event.message]);
      else if (event.type === 'assistant_delta') {
        if (!answered.current.has(event.messageId)) setPending((p) => ({ ...p, [event.messageId]: (p[event.messageId] ?? '') + event.text }));
      } else if (event.type === 'assistant_done' || event.type === 'agent_error') settle([event.replyTo]);
    },
    { onOpen: () => void loadLatest() },
  );

  const send = async () => {
    const content = text.trim();
    if (!content) return;
    setError(undefined);
    try {
      const sent = await client.conversations.send(id, content);
      setText('');
      // An agent may take a while before its first word: say at once that an answer is coming.
      if (!answered.current.has(sent.messageId)) setPending((p) => (sent.messageId in p ? p : { ...p, [sent.messageId]: '' }));
    } catch (e) {
      setError(errorText(e));
    }
  };
  if (!conversation.data) return conversation.error ? <ErrorNote error={conversation.error} /> : <p class="note">Loading…</p>;
  return (
    <div class="conversation" data-conversation-id={conversation.data.id}>
      <h2>{conversation.data.title ?? 'Untitled conversation'}</h2>
      <p class="muted mono">{conversation.data.id}</p>
      {older ? (
        <button
          type="button"
          onClick={async () => {
            try {
              const page = await client.conversations.messages(id, { before: older });
              add(page.messages);
              setOlder(page.next_before);
            } catch (e) {
              setError(errorText(e));
            }
          }}
        >
          Load older messages
        </button>
      ) : null}
      <ol class="messages" aria-live="polite">
        {messages.map((m) => (
          <MessageItem key={m.id} message={m} />
        ))}
        {Object.entries(pending).map(([replyTo, reply]) => (
          <li key={`pending-${replyTo}`} class="message role-assistant streaming" data-streaming-reply={replyTo}>
            <div class="message-head">
              <strong>assistant</strong> <span class="muted">replying…</span>
            </div>
            <div class="message-body">{reply}</div>
          </li>
        ))}
      </ol>
      <div ref={end} />
      <form
        class="send"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label class="block">
          Message
          <textarea
            name="message"
            rows={3}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            onKeyDown={(e) => {
              // Enter sends; Shift+Enter starts a new line.
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                void send();
              }
            }}
            placeholder="Ask the orchestrator, or /run <workflow> <text>"
          />
        </label>
        <button type="submit" class="primary">
          Send
        </button>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}

export function ConversationsView({ conversationId }: { conversationId: string | undefined }) {
  const list = useLoad(() => client.conversations.list({ limit: 100 }), `conversations:${conversationId ?? ''}`);
  return (
    <section aria-labelledby="conversations-title" class="master-detail">
      <div class="master">
        <h1 id="conversations-title">Conversations</h1>
        <NewConversation />
        <ErrorNote error={list.error} />
        <ul class="pick-list">
          {list.data?.conversations.map((c) => (
            <li key={c.id}>
              <a href={`#/conversations/${encodeURIComponent(c.id)}`} aria-current={c.id === conversationId ? 'page' : undefined}>
                <strong>{c.title ?? 'Untitled'}</strong> <span class="muted">{formatTime(c.updated_at)}</span>
              </a>
            </li>
          ))}
        </ul>
      </div>
      <div class="detail">{conversationId ? <ConversationDetail id={conversationId} /> : <p class="note">Choose or create a conversation.</p>}</div>
    </section>
  );
}

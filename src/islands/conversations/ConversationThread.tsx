import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { Language } from '#lib/i18n/index.ts';
import { formatDateTime } from '#lib/i18n/format.ts';
import { createApi, errorMessageOf } from '../lib/api.ts';
import { startPolling } from '../lib/poll.ts';
import { ErrorAlert } from '../ui/error-alert.tsx';
import { IslandProvider } from '../ui/provider.tsx';

/**
 * A conversation thread: its messages in order (live: new ones are fetched every few seconds with
 * GET /v1/conversations/{id}/messages?after=<seq>, and the thread is marked read when they arrive),
 * and the reply box: an e-mail (with attachments) or SMS to the customer, or an internal note with
 * @mentions of colleagues (typing @ offers matching names; the chosen ones are notified).
 */
export type ThreadMessage = {
  id: string;
  seq: number;
  kind: 'outbound' | 'inbound' | 'note';
  channel: 'email' | 'sms' | 'note';
  purpose: 'service' | 'marketing';
  subject: string;
  body: string;
  status: 'queued' | 'sent' | 'failed' | 'received' | 'note';
  error: string | null;
  authorId: string | null;
  authorName: string | null;
  createdAt: string;
  sentAt: string | null;
  attachments: { id: string; fileName: string; contentType: string; sizeBytes: number }[];
};
export type Colleague = { id: string; name: string };
export type ThreadLabels = Record<
  | 'empty'
  | 'inbound'
  | 'outbound'
  | 'note'
  | 'system'
  | 'reply'
  | 'kind'
  | 'asEmail'
  | 'asSms'
  | 'asNote'
  | 'subject'
  | 'body'
  | 'bodyRequired'
  | 'attach'
  | 'mentionHint'
  | 'mentionList'
  | 'send'
  | 'addNote'
  | 'sending'
  | 'live',
  string
> & {
  statuses: Record<ThreadMessage['status'], string>;
  channels: Record<ThreadMessage['channel'], string>;
  purposes: Record<ThreadMessage['purpose'], string>;
};

const api = createApi({ module: 'ConversationThread' });
export const POLL_MS = 3000;

function Thread(props: {
  conversationId: string;
  initial: ThreadMessage[];
  labels: ThreadLabels;
  colleagues: Colleague[];
  defaultKind: 'email' | 'sms';
  language: Language;
  timeZone?: string;
}) {
  const { labels: L, conversationId } = props;
  const [messages, setMessages] = useState(props.initial);
  const lastSeq = useRef(props.initial.at(-1)?.seq ?? 0);
  const [failure, setFailure] = useState<{ status: number; message: string; error: unknown } | null>(null);
  const [pollKey, setPollKey] = useState(0);
  const [kind, setKind] = useState<'email' | 'sms' | 'note'>(props.defaultKind);
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [mentions, setMentions] = useState<Colleague[]>([]);
  const [query, setQuery] = useState<string | null>(null);
  const [isSending, setIsSending] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const files = useRef<HTMLInputElement>(null);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const listEnd = useRef<HTMLLIElement>(null);

  const markRead = useCallback(
    () =>
      api
        .post(`conversations/${conversationId}/read`, { json: {}, headers: { 'x-background': '1' } })
        .catch(() => undefined),
    [conversationId],
  );
  const load = useCallback(
    () =>
      api
        .get(`conversations/${conversationId}/messages`, {
          searchParams: { after: String(lastSeq.current) },
          headers: { 'x-background': '1' },
        })
        .json<{ items: ThreadMessage[] }>()
        .then((d) => d.items),
    [conversationId],
  );
  const merge = useCallback(
    (items: ThreadMessage[]) => {
      if (items.length === 0) return;
      lastSeq.current = Math.max(lastSeq.current, ...items.map((m) => m.seq));
      setMessages((old) => {
        const byId = new Map(old.map((m) => [m.id, m]));
        for (const m of items) byId.set(m.id, m);
        return [...byId.values()].sort((a, b) => a.seq - b.seq);
      });
      void markRead();
    },
    [markRead],
  );
  // Status changes of recent messages (queued → sent) are picked up by re-reading the unsettled ones.
  const refreshPending = useCallback(async () => {
    const pending = messages.filter((m) => m.status === 'queued');
    if (pending.length === 0) return;
    const from = Math.min(...pending.map((m) => m.seq)) - 1;
    const items = await api
      .get(`conversations/${conversationId}/messages`, {
        searchParams: { after: String(from) },
        headers: { 'x-background': '1' },
      })
      .json<{ items: ThreadMessage[] }>()
      .then((d) => d.items)
      .catch(() => []);
    if (items.length) merge(items);
  }, [messages, conversationId, merge]);

  useEffect(() => {
    void markRead();
  }, [markRead]);
  useEffect(
    () =>
      startPolling({
        intervalMs: POLL_MS,
        doc: document,
        load,
        onResult: merge,
        onError: (error) => void errorMessageOf(error).then((m) => setFailure({ ...m, error })),
        shouldContinue: () => true,
      }),
    [load, merge, pollKey],
  );
  useEffect(() => {
    const timer = setInterval(() => void refreshPending(), POLL_MS * 2);
    return () => clearInterval(timer);
  }, [refreshPending]);
  // A block body: scrollIntoView may return a promise in newer browsers, which React would take for a cleanup.
  useEffect(() => {
    void listEnd.current?.scrollIntoView?.({ block: 'nearest' });
  }, [messages.length]);

  const suggestions = useMemo(() => {
    if (query === null) return [];
    const q = query.toLowerCase();
    return props.colleagues.filter((c) => c.name.toLowerCase().includes(q)).slice(0, 8);
  }, [query, props.colleagues]);

  const onBodyChange = (value: string, caret: number) => {
    setBody(value);
    const before = value.slice(0, caret);
    const m = /(^|\s)@([\p{L}\p{N}._-]{0,30})$/u.exec(before);
    setQuery(kind === 'note' && m ? m[2] : null);
  };
  const pick = (c: Colleague) => {
    const el = textarea.current;
    const caret = el?.selectionStart ?? body.length;
    const before = body.slice(0, caret).replace(/@[\p{L}\p{N}._-]*$/u, `@${c.name} `);
    const next = before + body.slice(caret);
    setBody(next);
    setMentions((old) => (old.some((o) => o.id === c.id) ? old : [...old, c]));
    setQuery(null);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(before.length, before.length);
    });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (suggestions.length && (e.key === 'Enter' || e.key === 'Tab')) {
      e.preventDefault();
      pick(suggestions[0]);
    } else if (e.key === 'Escape') setQuery(null);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) {
      setFormError(L.bodyRequired);
      return;
    }
    setIsSending(true);
    setFormError(null);
    try {
      const form = new FormData();
      form.set('kind', kind);
      form.set('body', body);
      if (kind === 'email') form.set('subject', subject);
      if (kind === 'note') for (const m of mentions) if (body.includes(`@${m.name}`)) form.append('mentions', m.id);
      if (kind === 'email') for (const f of Array.from(files.current?.files ?? [])) form.append('file', f);
      await api.post(`conversations/${conversationId}/messages`, { body: form });
      setBody('');
      setSubject('');
      setMentions([]);
      if (files.current) files.current.value = '';
      merge(await load());
    } catch (error) {
      setFormError((await errorMessageOf(error)).message);
    } finally {
      setIsSending(false);
    }
  };

  return (
    <div className="convo-thread">
      {failure ? (
        <ErrorAlert
          status={failure.status}
          message={failure.message}
          error={failure.error}
          module="ConversationThread"
          onRetry={() => {
            setFailure(null);
            setPollKey((k) => k + 1);
          }}
        />
      ) : null}
      <p className="muted convo-live">{L.live}</p>
      {messages.length === 0 ? <p className="empty-state">{L.empty}</p> : null}
      <ol className="convo-messages" aria-live="polite" data-testid="messages">
        {messages.map((m) => (
          <li key={m.id} className={`convo-msg convo-msg--${m.kind}`} data-testid={`message-${m.kind}`}>
            <div className="convo-meta">
              <strong>{m.kind === 'inbound' ? L.inbound : m.kind === 'note' ? L.note : L.outbound}</strong>
              <span className="badge">{L.channels[m.channel]}</span>
              {m.kind === 'outbound' ? (
                <span className={`badge badge--${m.purpose === 'marketing' ? 'running' : 'done'}`}>
                  {L.purposes[m.purpose]}
                </span>
              ) : null}
              {m.kind !== 'note' ? (
                <span
                  className={`badge badge--${m.status === 'failed' ? 'failed' : m.status === 'queued' ? 'queued' : 'done'}`}
                  data-testid="message-status"
                >
                  {L.statuses[m.status]}
                </span>
              ) : null}
              <span className="muted">
                {m.authorName ?? (m.kind === 'inbound' ? '' : L.system)} ·{' '}
                {formatDateTime(m.createdAt, props.language, props.timeZone)}
              </span>
            </div>
            {m.subject ? <p className="convo-subject">{m.subject}</p> : null}
            <p className="convo-body">{m.body}</p>
            {m.error && m.status === 'failed' ? <p className="field-error">{m.error}</p> : null}
            {m.attachments.length ? (
              <ul className="convo-files">
                {m.attachments.map((a) => (
                  <li key={a.id}>
                    <a href={`/v1/conversations/${conversationId}/attachments/${a.id}`} download>
                      {a.fileName}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
        <li ref={listEnd} aria-hidden="true" className="convo-end" />
      </ol>

      <form className="card convo-reply" onSubmit={(e) => void submit(e)} aria-label={L.reply}>
        <h2>{L.reply}</h2>
        <fieldset className="convo-kinds">
          <legend>{L.kind}</legend>
          {(['email', 'sms', 'note'] as const).map((k) => (
            <label key={k}>
              <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />{' '}
              {k === 'email' ? L.asEmail : k === 'sms' ? L.asSms : L.asNote}
            </label>
          ))}
        </fieldset>
        <div className="form-stack">
          {kind === 'email' ? (
            <>
              <label htmlFor="reply-subject">{L.subject}</label>
              <input id="reply-subject" value={subject} maxLength={200} onChange={(e) => setSubject(e.target.value)} />
            </>
          ) : null}
          <label htmlFor="reply-body">{L.body}</label>
          <textarea
            id="reply-body"
            ref={textarea}
            rows={5}
            maxLength={10000}
            value={body}
            aria-describedby={kind === 'note' ? 'reply-hint' : undefined}
            aria-invalid={formError ? true : undefined}
            onChange={(e) => onBodyChange(e.target.value, e.target.selectionStart)}
            onKeyDown={onKeyDown}
          />
          {kind === 'note' ? (
            <p id="reply-hint" className="muted">
              {L.mentionHint}
            </p>
          ) : null}
          {suggestions.length ? (
            <ul className="convo-mentions" role="listbox" aria-label={L.mentionList} data-testid="mention-suggestions">
              {suggestions.map((c, i) => (
                <li key={c.id} role="option" aria-selected={i === 0}>
                  <button type="button" className="button button--ghost" onClick={() => pick(c)}>
                    @{c.name}
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          {kind === 'email' ? (
            <>
              <label htmlFor="reply-files">{L.attach}</label>
              <input id="reply-files" ref={files} type="file" multiple accept=".pdf,.png,.jpg,.jpeg,.csv,.txt" />
            </>
          ) : null}
          {formError ? (
            <p className="field-error" role="alert">
              {formError}
            </p>
          ) : null}
        </div>
        <p>
          <button className="button button--primary" type="submit" disabled={isSending}>
            {isSending ? L.sending : kind === 'note' ? L.addNote : L.send}
          </button>
        </p>
      </form>
    </div>
  );
}

export default function ConversationThread(props: Parameters<typeof Thread>[0]) {
  return (
    <IslandProvider language={props.language} module="ConversationThread">
      <Thread {...props} />
    </IslandProvider>
  );
}

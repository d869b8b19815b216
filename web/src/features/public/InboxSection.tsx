import { useState } from 'react';
import { useContactInboxQuery } from './public.api';
import { formatDateTime } from '../../base/format';
import { ErrorAlert } from '../../components/ErrorAlert';

const PAGE = 20;

/** The admin dashboard's Inbox: contact-form messages, newest first (admin only; the server checks). */
export function InboxSection() {
  const [offset, setOffset] = useState(0);
  const q = useContactInboxQuery({ limit: PAGE, offset });
  const total = q.data?.total ?? 0;
  return (
    <section className="step" aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">Inbox</h2>
      {q.isLoading ? (
        <p className="muted" role="status">
          Loading messages…
        </p>
      ) : q.isError ? (
        <ErrorAlert error={q.error} fallback="Failed to load messages." />
      ) : !q.data?.messages.length ? (
        <p className="muted">No messages yet.</p>
      ) : (
        <>
          <ul className="inbox">
            {q.data.messages.map((m) => (
              <li key={m.id} className="card">
                <strong>{m.topic}</strong> from {m.name} &lt;<a href={`mailto:${m.email}`}>{m.email}</a>&gt;
                <span className="muted"> · {formatDateTime(m.created_at)}</span>
                <pre>{m.message}</pre>
              </li>
            ))}
          </ul>
          <p className="row toolbar">
            <button className="btn" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
              Newer
            </button>
            <span className="muted">
              {offset + 1}–{Math.min(offset + PAGE, total)} of {total}
            </span>
            <button className="btn" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
              Older
            </button>
          </p>
        </>
      )}
    </section>
  );
}

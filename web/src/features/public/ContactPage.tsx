import { useEffect, useState, type FormEvent } from 'react';
import { useCurrentUser } from '../auth';
import { useSendContactMutation, type ContactRequest } from './public.api';
import { usePageMeta } from './usePageMeta';
import { ErrorAlert } from '../../components/ErrorAlert';

const TOPICS: Array<ContactRequest['topic']> = ['General question', 'Technical support', 'Billing', 'Partnership', 'Feedback'];

/** /contact: name, e-mail, topic and message; stored and mailed to the team. */
export function ContactPage() {
  usePageMeta('Contact', 'Questions, support, billing or partnerships: send the Reelsmith team a message and get a reply by e-mail.');
  const [form, setForm] = useState({ name: '', email: '', topic: TOPICS[0]!, message: '', website: '' });
  const [send, { isLoading, error, data, reset }] = useSendContactMutation();
  // A signed-in user's e-mail (and name) are filled in, unless something was typed there already.
  const { user } = useCurrentUser();
  useEffect(() => {
    if (!user) return;
    setForm((f) => ({ ...f, email: f.email || user.email, name: f.name || (user.display_name ?? '') }));
  }, [user]);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const r = await send(form);
    if (!('error' in r)) setForm((f) => ({ ...f, message: '' }));
  };

  return (
    <section className="page public">
      <h1>Contact</h1>
      <p className="lead">Questions, support, billing or partnerships: write to us and we reply by e-mail.</p>
      {data ? (
        <div className="card contact-form" role="status">
          <h2>Message sent</h2>
          <p>{data.message}</p>
          <button className="btn" onClick={reset}>
            Send another message
          </button>
        </div>
      ) : (
        <form className="form contact-form" onSubmit={submit} noValidate={false}>
          <label>
            Name
            <input required maxLength={100} autoComplete="name" value={form.name} onChange={set('name')} />
          </label>
          <label>
            E-mail
            <input required type="email" maxLength={254} autoComplete="email" value={form.email} onChange={set('email')} />
          </label>
          <label>
            Topic
            <select value={form.topic} onChange={set('topic')}>
              {TOPICS.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Message
            <textarea required minLength={10} maxLength={5000} value={form.message} onChange={set('message')} />
          </label>
          {/* Hidden from people and screen readers; bots fill it in and their message is dropped. */}
          <div className="honeypot" aria-hidden="true">
            <label>
              Website
              <input tabIndex={-1} autoComplete="off" value={form.website} onChange={set('website')} />
            </label>
          </div>
          {error && <ErrorAlert error={error} fallback="Your message could not be sent. Please try again." />}
          <button className="btn primary" type="submit" disabled={isLoading}>
            {isLoading ? 'Sending…' : 'Send Message'}
          </button>
        </form>
      )}
    </section>
  );
}

import { useId, useState, type FormEvent } from 'react';
import { Link } from '../../components/navigation';
import { errorDetail } from '../../base/api';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useCurrentUser } from '../auth';
import { useApiKeysQuery, useCreateApiKeyMutation, useRevokeApiKeyMutation, type ApiKeyCreated, type ApiKeyScope } from './developers.api';

const SCOPES: Array<[ApiKeyScope, string]> = [
  ['uploads:write', 'Upload files'],
  ['jobs:write', 'Make reels'],
  ['jobs:read', 'Read jobs and download'],
  ['library:read', 'Use the stock libraries'],
  ['reels:read', 'List my reels'],
  ['reels:delete', 'Delete my reels'],
];
const DEFAULT_SCOPES: ApiKeyScope[] = ['uploads:write', 'jobs:write', 'jobs:read'];

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'Never');

/** The secret of a key just made: shown this once, with a copy button. */
function NewSecret({ created, onDone }: { created: ApiKeyCreated; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  const copy = async () => {
    await navigator.clipboard?.writeText(created.secret).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="notice success" role="status">
      <label htmlFor={id}>Your new key “{created.name}”. Copy it now: it will not be shown again.</label>
      <div className="row">
        <input id={id} readOnly value={created.secret} onFocus={(e) => e.currentTarget.select()} data-testid="api-key-secret" />
        <button type="button" className="btn" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="btn" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * Settings' "API keys": create a key (name and scopes), copy its secret once, see when each was
 * last used, revoke. Only on a plan with API access (Corporate) or for admins; others are told so.
 */
export function ApiKeysPanel() {
  const { user } = useCurrentUser();
  const allowed = Boolean(
    user && !user.is_guest && (user.is_admin || (user.subscription.plan === 'corporate' && user.subscription.status === 'active')),
  );
  const keys = useApiKeysQuery(undefined, { skip: !allowed });
  const [create, createState] = useCreateApiKeyMutation();
  const [revoke, revokeState] = useRevokeApiKeyMutation();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(DEFAULT_SCOPES);
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headingId = useId();

  if (!allowed)
    return (
      <section aria-labelledby={headingId}>
        <h3 id={headingId}>API keys</h3>
        <p className="muted">
          API access is part of the Corporate plan: keys let your own systems upload, make reels and download them. See{' '}
          <Link to="/pricing">Pricing</Link>.
        </p>
      </section>
    );

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!name.trim()) return setError('Give the key a name, e.g. the system that will use it.');
    if (!scopes.length) return setError('Choose at least one thing the key may do.');
    try {
      setCreated(await create({ name: name.trim(), scopes }).unwrap());
      setName('');
    } catch (err) {
      setError(errorDetail(err, 'Could not create the key. Please try again.'));
    }
  };
  const remove = async (id: string, keyName: string) => {
    setError(null);
    try {
      await revoke(id).unwrap();
    } catch (err) {
      setError(errorDetail(err, `Could not revoke “${keyName}”. Please try again.`));
    }
  };

  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>API keys</h3>
      <p className="muted">
        Send a key as <code>Authorization: Bearer rs_live_…</code>. Keys cannot change your password or e-mail, delete the account, manage
        keys or pay.
      </p>
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {keys.isLoading ? (
        <p className="muted">Loading your keys…</p>
      ) : keys.isError ? (
        <ErrorAlert error={keys.error} fallback="Could not load your API keys." />
      ) : !keys.data?.length ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <ul className="key-list" aria-label="Your API keys">
          {keys.data.map((k) => (
            <li key={k.id}>
              <strong>{k.name}</strong> <code>{k.prefix}…</code>
              <span className="muted"> {k.scopes.join(', ')}</span>
              <span className="muted">
                {' '}
                · Created {when(k.created_at)} · Last used {when(k.last_used_at)}
              </span>{' '}
              <button type="button" className="btn danger" disabled={revokeState.isLoading} onClick={() => void remove(k.id, k.name)}>
                Revoke<span className="sr-only"> {k.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="form" onSubmit={submit} noValidate aria-label="Create an API key">
        <label>
          Key name
          <input value={name} maxLength={60} onChange={(e) => setName(e.target.value)} placeholder="e.g. Website backend" />
        </label>
        <fieldset>
          <legend>The key may</legend>
          {SCOPES.map(([scope, label]) => (
            <label key={scope} className="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              />{' '}
              {label} <code>{scope}</code>
            </label>
          ))}
        </fieldset>
        <button className="btn primary" type="submit" disabled={createState.isLoading}>
          {createState.isLoading ? 'Creating…' : 'Create API Key'}
        </button>
      </form>
    </section>
  );
}

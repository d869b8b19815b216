import { useId, useState, type FormEvent } from 'react';
import { api, errorDetail } from '../../base/api';
import { signedOut } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useChangePasswordMutation, useDeleteAccountMutation, useLogoutAllMutation, useSetDisplayNameMutation } from './auth.api';
import { useCurrentUser } from './useCurrentUser';

/** The server's rule (1-40 characters once trimmed); it also refuses invisible characters. */
const PUBLIC_NAME_MAX = 40;

type Outcome = { ok: boolean; text: string } | null;

const Result = ({ outcome }: { outcome: Outcome }) =>
  outcome &&
  (outcome.ok ? (
    <p className="notice success" role="status">
      {outcome.text}
    </p>
  ) : (
    <ErrorAlert>{outcome.text}</ErrorAlert>
  ));

/**
 * The public name shown on the Hall of Fame next to the user's featured reels (never the e-mail).
 * Empty: not listed there.
 */
function PublicName() {
  const { user } = useCurrentUser();
  const [save, saveState] = useSetDisplayNameMutation();
  const saved = user?.display_name ?? '';
  const [name, setName] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const value = name ?? saved;
  const helpId = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const trimmed = value.trim();
    if ([...trimmed].length > PUBLIC_NAME_MAX)
      return setOutcome({ ok: false, text: `The public name must be at most ${PUBLIC_NAME_MAX} characters` });
    try {
      const u = await save({ display_name: trimmed || null }).unwrap();
      // What the server stored (trimmed), until the refreshed user arrives with the same.
      setName(u.display_name ?? '');
      setOutcome({
        ok: true,
        text: u.display_name ? `Saved. Your featured reels show “${u.display_name}”.` : 'Cleared. You are not listed on the Hall of Fame.',
      });
    } catch (err) {
      setOutcome({ ok: false, text: errorDetail(err, 'Could not save the public name. Please try again.') });
    }
  };

  return (
    <>
      <h3>Public Name</h3>
      <form className="form" onSubmit={submit} noValidate>
        <label>
          Public name
          <input
            type="text"
            name="display_name"
            autoComplete="nickname"
            maxLength={PUBLIC_NAME_MAX * 2}
            value={value}
            aria-describedby={helpId}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <p className="muted" id={helpId}>
          Shown on the Hall of Fame next to your featured reels. Leave it empty to stay unlisted; your e-mail is never shown.
        </p>
        <Result outcome={outcome} />
        <button className="btn" type="submit" disabled={saveState.isLoading || value.trim() === saved}>
          {saveState.isLoading ? 'Please wait…' : 'Save Public Name'}
        </button>
      </form>
    </>
  );
}

/** The account part of Settings (signed in only): public name, change password, sign out everywhere, delete account. */
export function AccountSettings() {
  const dispatch = useAppDispatch();
  const [change, changeState] = useChangePasswordMutation();
  const [logoutAll, logoutAllState] = useLogoutAllMutation();
  const [remove, removeState] = useDeleteAccountMutation();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [changed, setChanged] = useState<Outcome>(null);
  const [everywhere, setEverywhere] = useState<Outcome>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deletePassword, setDeletePassword] = useState('');
  const [deleted, setDeleted] = useState<Outcome>(null);

  const leave = () => {
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
  };

  const submitChange = async (e: FormEvent) => {
    e.preventDefault();
    if (!current || !next) return setChanged({ ok: false, text: 'Password is required' });
    if (next.length < 6) return setChanged({ ok: false, text: 'Password must be at least 6 characters' });
    try {
      setChanged({ ok: true, text: (await change({ current_password: current, new_password: next }).unwrap()).message });
      setCurrent('');
      setNext('');
    } catch (err) {
      setChanged({ ok: false, text: errorDetail(err, 'Could not change the password. Please try again.') });
    }
  };

  const signOutEverywhere = async () => {
    try {
      await logoutAll().unwrap();
      leave();
    } catch (err) {
      setEverywhere({ ok: false, text: errorDetail(err, 'Could not sign out everywhere. Please try again.') });
    }
  };

  const submitDelete = async (e: FormEvent) => {
    e.preventDefault();
    if (!deletePassword) return setDeleted({ ok: false, text: 'Password is required' });
    try {
      await remove({ password: deletePassword }).unwrap();
      leave();
    } catch (err) {
      setDeleted({ ok: false, text: errorDetail(err, 'Could not delete the account. Please try again.') });
    }
  };

  return (
    <div className="form settings-section">
      <PublicName />

      <h3>Change Password</h3>
      {/* Same password fields as ResetPasswordPage by design: each page owns its form and state. */}
      <form className="form" onSubmit={submitChange} noValidate>
        <label>
          Current Password
          <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </label>
        <label>
          New Password
          <input type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </label>
        <Result outcome={changed} />
        <button className="btn" type="submit" disabled={changeState.isLoading}>
          {changeState.isLoading ? 'Please wait…' : 'Change Password'}
        </button>
      </form>

      <h3>Sessions</h3>
      <p className="muted">Signs out every browser and device signed in to this account, this one included.</p>
      <Result outcome={everywhere} />
      <button className="btn" onClick={signOutEverywhere} disabled={logoutAllState.isLoading}>
        {logoutAllState.isLoading ? 'Please wait…' : 'Sign Out Everywhere'}
      </button>

      <div className="danger-zone">
        <h3>Delete Account</h3>
        <p className="muted">
          Deletes your account, your uploads and your reels. Purchase records are kept without your name. This cannot be undone.
        </p>
        {!confirmDelete ? (
          <button className="btn danger" onClick={() => setConfirmDelete(true)}>
            Delete Account…
          </button>
        ) : (
          <form className="form" onSubmit={submitDelete} noValidate>
            <label>
              Confirm with your password
              <input
                type="password"
                autoComplete="current-password"
                value={deletePassword}
                onChange={(e) => setDeletePassword(e.target.value)}
              />
            </label>
            <Result outcome={deleted} />
            <div className="row">
              <button type="button" className="btn" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
              <button className="btn danger" type="submit" disabled={removeState.isLoading}>
                {removeState.isLoading ? 'Deleting…' : 'Delete My Account'}
              </button>
            </div>
          </form>
        )}
      </div>
    </div>
  );
}

import { useState, type FormEvent } from 'react';
import { api, errorDetail } from '../../app/api';
import { signedOut } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { useChangePasswordMutation, useDeleteAccountMutation, useLogoutAllMutation } from './auth.api';

type Outcome = { ok: boolean; text: string } | null;

const Result = ({ outcome }: { outcome: Outcome }) =>
  outcome &&
  (outcome.ok ? (
    <p className="notice success" role="status">
      {outcome.text}
    </p>
  ) : (
    <p className="error" role="alert">
      {outcome.text}
    </p>
  ));

/** The account part of Settings (signed in only): change password, sign out everywhere, delete account. */
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
      <h3>Change Password</h3>
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

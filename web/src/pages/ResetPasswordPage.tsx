import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from '../components/navigation';
import { ErrorAlert } from '../components/ErrorAlert';
import { errorDetail } from '../base/api';
import { authOpened } from '../base/session';
import { useAppDispatch } from '../base/store';
import { useResetPasswordMutation } from '../features/auth';

/**
 * Standalone page outside the shared layout, like /verify-email: the link of the reset mail
 * (/reset-password?token=...) sets a new password once; every device is signed out.
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState('');
  const [done, setDone] = useState<{ message: string; email: string } | null>(null);
  const [reset, state] = useResetPasswordMutation();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();

  useEffect(() => {
    document.title = 'Reset Password · Reelsmith';
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    if (!password) return setError('Password is required');
    if (password.length < 6) return setError('Password must be at least 6 characters');
    if (password !== confirm) return setError('Passwords do not match');
    try {
      setDone(await reset({ token: token!, password }).unwrap());
    } catch (err) {
      setError(errorDetail(err, 'An unknown error occurred. Please try again.'));
    }
  };

  const signIn = (email = '') => {
    navigate('/');
    dispatch(authOpened({ mode: 'signin', email }));
  };

  return (
    <main className="standalone">
      <div className="card">
        {!token && (
          <>
            <h1>Reset Failed</h1>
            <p className="error">Invalid reset link. No token was found.</p>
            <div className="row">
              <button className="btn primary" onClick={() => dispatch(authOpened({ mode: 'forgot' })) && navigate('/')}>
                Ask for a New Link
              </button>
              <Link className="btn" to="/">
                Go Home
              </Link>
            </div>
          </>
        )}
        {token && done && (
          <>
            <h1>Password Changed</h1>
            <p className="notice success" role="status">
              {done.message}
            </p>
            <div className="row">
              <button className="btn primary" onClick={() => signIn(done.email)}>
                Sign In
              </button>
            </div>
          </>
        )}
        {token && !done && (
          <form className="form" onSubmit={submit} noValidate>
            <h1>Choose a New Password</h1>
            <p className="muted">Every device signed in to your account will be signed out.</p>
            {/* Same password fields as AccountSettings' change form by design: each page owns its form and state. */}
            <label>
              New Password
              <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <label>
              Confirm Password
              <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
            </label>
            {error && <ErrorAlert>{error}</ErrorAlert>}
            <button className="btn primary wide" type="submit" disabled={state.isLoading}>
              {state.isLoading ? 'Please wait…' : 'Set New Password'}
            </button>
            <div className="form-links">
              <button type="button" className="link" onClick={() => dispatch(authOpened({ mode: 'forgot' })) && navigate('/')}>
                Ask for a new link
              </button>
            </div>
          </form>
        )}
      </div>
    </main>
  );
}

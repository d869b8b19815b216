import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from '../components/navigation';
import { errorDetail } from '../base/api';
import { authOpened, signedIn } from '../base/session';
import { useAppDispatch, useAppSelector } from '../base/store';
import { useLazyMeQuery, useVerifyEmailMutation } from '../features/auth';

type State = { kind: 'verifying' } | { kind: 'success' } | { kind: 'already' } | { kind: 'error'; message: string };

/** Standalone page outside the shared layout (spec section 2): verifying, success or error; runs once per load. */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const [state, setState] = useState<State>(
    token ? { kind: 'verifying' } : { kind: 'error', message: 'Invalid verification link. No token was found.' },
  );
  const [verify] = useVerifyEmailMutation();
  const [loadMe] = useLazyMeQuery();
  const signedInToken = useAppSelector((s) => s.session.token);
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const ran = useRef(false);

  useEffect(() => {
    document.title = 'Verify Email · Reelsmith';
    if (!token || ran.current) return;
    ran.current = true;
    verify({ token })
      .unwrap()
      .then((s) => {
        dispatch(signedIn(s.session_token));
        setState({ kind: 'success' });
      })
      .catch(async (e: unknown) => {
        // A link already used, opened while signed in as a verified user: that is not a failure.
        const me = signedInToken
          ? await loadMe()
              .unwrap()
              .catch(() => null)
          : null;
        if (me?.email_verified) return setState({ kind: 'already' });
        setState({ kind: 'error', message: errorDetail(e, 'An unknown error occurred. Please try again.') });
      });
  }, [token, verify, dispatch, signedInToken, loadMe]);

  return (
    <main className="standalone">
      <div className="card">
        {state.kind === 'verifying' && (
          <>
            <div className="spinner" aria-hidden="true" />
            <h1>Verifying your email…</h1>
          </>
        )}
        {state.kind === 'success' && (
          <>
            <h1>Email Verified!</h1>
            <p>Your account is ready and you are signed in.</p>
            <Link className="btn primary" to="/">
              Go to Dashboard
            </Link>
          </>
        )}
        {state.kind === 'already' && (
          <>
            <h1>Email Already Verified</h1>
            <p>Your email address is already verified, and you are signed in.</p>
            <Link className="btn primary" to="/">
              Go to Dashboard
            </Link>
          </>
        )}
        {state.kind === 'error' && (
          <>
            <h1>Verification Failed</h1>
            <p className="error">{state.message}</p>
            <div className="row">
              <button
                className="btn primary"
                onClick={() => {
                  navigate('/');
                  dispatch(authOpened({ mode: 'signin' }));
                }}
              >
                Try Logging In
              </button>
              {/* The same two way-out buttons as ResetPasswordPage by design: each page's own first action. */}
              <Link className="btn" to="/">
                Go Home
              </Link>
            </div>
          </>
        )}
      </div>
    </main>
  );
}

import { useEffect, useState, type FormEvent } from 'react';
import { errorCode, errorDetail } from '../../base/api';
import { authClosed, authOpened, signedIn, type AuthMode } from '../../base/session';
import { useAppDispatch, useAppSelector } from '../../base/store';
import { Modal } from '../../components/Modal';
import { ErrorAlert } from '../../components/ErrorAlert';
import {
  useForgotPasswordMutation,
  useLoginMutation,
  useRegisterMutation,
  useResendVerificationMutation,
  useVerifyEmailMutation,
} from './auth.api';

const titles: Record<AuthMode, string> = {
  signin: 'Sign In',
  signup: 'Create Account',
  verify: 'Verify Your Email',
  forgot: 'Reset Your Password',
};

/**
 * The auth modal (spec sections 2 and 4): modes signin, signup and verify. Sign-up success moves
 * to verify carrying the e-mail; verify or sign-in success closes the modal and sets the user.
 */
export function AuthModal() {
  const dispatch = useAppDispatch();
  const { open, mode, email: carried, notice } = useAppSelector((s) => s.session.modal);
  const [email, setEmail] = useState(carried);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [info, setInfo] = useState('');
  const [login, loginState] = useLoginMutation();
  const [register, registerState] = useRegisterMutation();
  const [verify, verifyState] = useVerifyEmailMutation();
  const [resend, resendState] = useResendVerificationMutation();
  const [forgot, forgotState] = useForgotPasswordMutation();
  const busy = loginState.isLoading || registerState.isLoading || verifyState.isLoading || forgotState.isLoading;

  useEffect(() => {
    setEmail(carried);
    setError('');
    setInfo(notice);
    setPassword('');
    setConfirm('');
    setCode('');
  }, [open, mode, carried, notice]);

  if (!open) return null;
  const switchTo = (m: AuthMode) => dispatch(authOpened({ mode: m, email }));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    // Client checks are for comfort; the server enforces the same rules.
    if (!email.trim()) return setError('Email is required');
    if (mode === 'forgot') {
      try {
        setInfo((await forgot({ email: email.trim() }).unwrap()).message);
      } catch (err) {
        setError(errorDetail(err, 'Could not send the reset link. Please try again.'));
      }
      return;
    }
    if (mode === 'verify') {
      if (!code.trim()) return setError('Verification code is required');
      try {
        const s = await verify({ email: email.trim(), code: code.trim() }).unwrap();
        dispatch(signedIn(s.session_token));
      } catch (err) {
        setError(errorDetail(err, 'Email verification failed'));
      }
      return;
    }
    if (!password) return setError('Password is required');
    if (mode === 'signup') {
      if (password !== confirm) return setError('Passwords do not match');
      if (password.length < 6) return setError('Password must be at least 6 characters');
      try {
        const r = await register({ email: email.trim(), password }).unwrap();
        dispatch(
          authOpened({ mode: 'verify', email: r.email, notice: 'We sent a 6-digit code and a link to your email. Enter the code below.' }),
        );
      } catch (err) {
        setError(errorDetail(err, 'Registration failed'));
      }
      return;
    }
    try {
      const s = await login({ email: email.trim(), password }).unwrap();
      dispatch(signedIn(s.session_token));
    } catch (err) {
      if (errorCode(err) === 'email_not_verified')
        dispatch(authOpened({ mode: 'verify', email: email.trim(), notice: errorDetail(err, '') }));
      else setError(errorDetail(err, 'Login failed'));
    }
  };

  const resendCode = async () => {
    setError('');
    if (!email.trim()) return setError('Email is required');
    try {
      const r = await resend({ email: email.trim() }).unwrap();
      setInfo(r.message);
    } catch (err) {
      setError(errorDetail(err, 'Could not send a new code. Please try again.'));
    }
  };

  return (
    <Modal title={titles[mode]} onClose={() => dispatch(authClosed())}>
      <form className="form" onSubmit={submit} noValidate>
        {info && (
          <p className="notice success" role="status">
            {info}
          </p>
        )}
        <label>
          Email
          <input
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            disabled={mode === 'verify' && Boolean(carried)}
          />
        </label>
        {mode !== 'verify' && mode !== 'forgot' && (
          <label>
            Password
            <input
              type="password"
              autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
        )}
        {mode === 'signup' && (
          <label>
            Confirm Password
            <input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </label>
        )}
        {mode === 'verify' && (
          <label>
            Verification Code
            <input
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              value={code}
              onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            />
          </label>
        )}
        {error && <ErrorAlert>{error}</ErrorAlert>}
        <button className="btn primary wide" type="submit" disabled={busy}>
          {busy ? 'Please wait…' : { signin: 'Sign In', signup: 'Create Account', verify: 'Verify Email', forgot: 'Send Reset Link' }[mode]}
        </button>
        <div className="form-links">
          {mode === 'signin' && (
            <>
              <button type="button" className="link" onClick={() => switchTo('forgot')}>
                Forgot password?
              </button>
              <button type="button" className="link" onClick={() => switchTo('signup')}>
                No account yet? Sign up
              </button>
            </>
          )}
          {mode === 'forgot' && (
            <button type="button" className="link" onClick={() => switchTo('signin')}>
              Back to sign in
            </button>
          )}
          {mode === 'signup' && (
            <button type="button" className="link" onClick={() => switchTo('signin')}>
              Already have an account? Sign in
            </button>
          )}
          {mode === 'verify' && (
            <>
              <button type="button" className="link" onClick={resendCode} disabled={resendState.isLoading}>
                Send a new code
              </button>
              <button type="button" className="link" onClick={() => switchTo('signin')}>
                Back to sign in
              </button>
            </>
          )}
        </div>
      </form>
    </Modal>
  );
}

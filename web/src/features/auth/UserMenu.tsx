import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { api } from '../../app/api';
import { signedOut } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { DefaultSettingsModal } from '../settings/DefaultSettingsModal';
import { useLogoutMutation, type User } from './auth.api';

const planNames: Record<string, string> = { free: 'Free', standard: 'Standard', 'mid-tier': 'Mid-Tier', corporate: 'Corporate' };

/** The usage line: what the user can still make (billing decides the entitlements). */
export function usageLine(u: User): string {
  if (u.is_admin) return 'Unlimited videos (admin)';
  if (u.is_guest) return 'Enterprise access (guest pass)';
  if (u.entitlements.unlimited) return 'Unlimited videos';
  if (u.entitlements.subscribed) return `${u.credits.toLocaleString()} credits available`;
  const free = u.daily_free_used ? 'Free video used today (resets at midnight UTC)' : '1 free video available today';
  return u.credits > 0 ? `${free} · ${u.credits.toLocaleString()} credits` : free;
}

/** The user menu of spec section 2. */
export function UserMenu({ user }: { user: User }) {
  const dispatch = useAppDispatch();
  const [open, setOpen] = useState(false);
  const [settings, setSettings] = useState(false);
  const [logout] = useLogoutMutation();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const close = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && setOpen(false);
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);

  const signOut = async () => {
    setOpen(false);
    await logout()
      .unwrap()
      .catch(() => undefined);
    dispatch(signedOut());
    dispatch(api.util.resetApiState());
  };
  const free = !user.entitlements.subscribed;
  const plan = `${planNames[user.subscription.plan] ?? user.subscription.plan}${user.subscription.plan !== 'free' && user.subscription.status !== 'active' ? ` (${user.subscription.status})` : ''}`;

  return (
    <div className="user-menu" ref={ref}>
      <button className="btn" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        {user.email}
        {user.is_admin && <span className="badge">ADMIN</span>}
      </button>
      {open && (
        <div className="menu" role="menu" aria-label="User menu">
          <div className="menu-head">
            <strong>{user.email}</strong>
            {user.is_admin && <span className="badge">ADMIN</span>}
            <div className="muted">Plan: {plan}</div>
            <div className="muted" data-testid="usage-line">
              {usageLine(user)}
            </div>
            {user.subscription.next_billing && (
              <div className="muted">Next billing: {new Date(user.subscription.next_billing).toLocaleDateString()}</div>
            )}
          </div>
          {free && !user.entitlements.unlimited && (
            <Link role="menuitem" className="btn primary wide" to="/pricing" onClick={() => setOpen(false)}>
              Upgrade for More Credits
            </Link>
          )}
          <Link role="menuitem" to="/pricing" onClick={() => setOpen(false)}>
            Billing and Plans
          </Link>
          <button
            role="menuitem"
            onClick={() => {
              setOpen(false);
              setSettings(true);
            }}
          >
            Settings
          </button>
          <button role="menuitem" onClick={signOut}>
            Sign Out
          </button>
        </div>
      )}
      {settings && <DefaultSettingsModal onClose={() => setSettings(false)} />}
    </div>
  );
}

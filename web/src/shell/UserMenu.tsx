import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { Link } from '../components/navigation';
import type { User } from '../api/types';
import { AccountSettings, useLogoutMutation } from '../features/auth';
import { useOfferCount } from '../features/marketplace';
import { DefaultSettingsModal } from '../features/settings';
import { api } from '../base/api';
import { formatDate, formatPlural } from '../base/format';
import { signedOut } from '../base/session';
import { useAppDispatch } from '../base/store';

// API keys and webhooks load with the Settings dialog, not with every page.
const DeveloperSettings = lazy(() => import('../features/developers').then((m) => ({ default: m.DeveloperSettings })));

const planNames: Record<string, string> = { free: 'Free', standard: 'Standard', 'mid-tier': 'Mid-Tier', corporate: 'Corporate' };

/** The usage line: what the user can still make (billing decides the entitlements). */
export function usageLine(u: User): string {
  if (u.is_admin) return 'Unlimited videos (admin)';
  if (u.is_guest) return 'Enterprise access (guest pass)';
  if (u.entitlements.unlimited) return 'Unlimited videos';
  if (u.entitlements.subscribed) return `${formatPlural(u.credits, 'credit')} available`;
  const free = u.daily_free_used ? 'Free video used today (resets at midnight UTC)' : '1 free video available today';
  return u.credits > 0 ? `${free} · ${formatPlural(u.credits, 'credit')}` : free;
}

/**
 * The user menu of spec section 2. It sits in the shell (shell/) because it gathers several features (the account,
 * the marketplace's open offers, the default settings), none of which may import the others back.
 */
export function UserMenu({ user }: { user: User }) {
  const dispatch = useAppDispatch();
  const [open, setOpen] = useState(false);
  const [settings, setSettings] = useState(false);
  const [logout] = useLogoutMutation();
  const offers = useOfferCount(true);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const close = (e: MouseEvent) => ref.current && !ref.current.contains(e.target as Node) && setOpen(false);
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, []);
  useEffect(() => {
    if (!open) return;
    // Escape closes the menu and gives the focus back to its button.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      ref.current?.querySelector<HTMLElement>('button')?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

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
      <button className="btn user-button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="user-email" title={user.email}>
          {user.email}
        </span>
        {user.is_admin && <span className="badge">ADMIN</span>}
        {offers > 0 && (
          <span className="badge" data-testid="offer-count" aria-label={`${offers} open offer${offers === 1 ? '' : 's'}`}>
            {offers}
          </span>
        )}
      </button>
      {open && (
        <div className="menu" role="menu" aria-label="User menu">
          <div className="menu-head">
            <strong>{user.email}</strong>
            {user.is_admin && <span className="badge">ADMIN</span>}
            <div className="muted" data-testid="menu-plan">
              {user.is_admin ? 'Admin (unlimited)' : `Plan: ${plan}`}
            </div>
            <div className="muted" data-testid="usage-line">
              {usageLine(user)}
            </div>
            {user.subscription.next_billing && (
              <div className="muted" data-testid="next-billing">
                {user.subscription.cancel_at_period_end ? 'Plan ends' : 'Next billing'}: {formatDate(user.subscription.next_billing)}
              </div>
            )}
          </div>
          {free && !user.is_admin && !user.entitlements.unlimited && (
            <Link role="menuitem" className="btn primary wide" to="/pricing" onClick={() => setOpen(false)}>
              Upgrade for More Credits
            </Link>
          )}
          <Link role="menuitem" to="/pricing#billing" onClick={() => setOpen(false)}>
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
      {settings && (
        <DefaultSettingsModal
          onClose={() => setSettings(false)}
          account={
            <>
              <AccountSettings />
              <Suspense fallback={null}>
                <DeveloperSettings />
              </Suspense>
            </>
          }
        />
      )}
    </div>
  );
}

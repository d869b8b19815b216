import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, NavLink, useLocation } from '../components/navigation';
import { authOpened } from '../base/session';
import { useAppDispatch } from '../base/store';
import { useCurrentUser } from '../features/auth';
import { CartDrawer, PaymentNotice } from '../features/payments';

/** Only signed-in people have the account menu (and its settings dialogs): it loads then. */
const UserMenu = lazy(() => import('./UserMenu').then((m) => ({ default: m.UserMenu })));

const mainLinks = [
  { to: '/', label: 'Create' },
  { to: '/demos', label: 'Demos' },
  { to: '/library', label: 'Library' },
  { to: '/reels', label: 'My Reels' },
  { to: '/guide', label: 'Guide' },
  { to: '/pricing', label: 'Pricing' },
];

// Shown only to admins (the server checks every admin call regardless).
const adminLinks = [
  { to: '/admin', label: 'Admin' },
  { to: '/footage-marketplace', label: 'Marketplace' },
];

// The footer repeats some of the main links on purpose: it lists the site's pages.
const footerLinks = [
  { to: '/demos', label: 'Demos' },
  { to: '/pricing', label: 'Pricing' },
  { to: '/guide', label: 'Guide' },
  { to: '/about', label: 'About Us' },
  { to: '/hall-of-fame', label: 'Hall of Fame' },
  { to: '/contact', label: 'Contact' },
];

/** The shared layout of every route but /verify-email: top navigation (with a mobile menu) and footer. */
export function Layout({ children }: { children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const dispatch = useAppDispatch();
  const { user, loading } = useCurrentUser();
  // A new page, or signing in or out (from the phone menu's button), closes the phone menu.
  useEffect(() => setMenuOpen(false), [location.pathname, user?.id]);
  const toggle = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!menuOpen) return;
    // Escape closes the phone menu and gives the focus back to its button.
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuOpen(false);
      toggle.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <div className="shell">
      <header className="topnav">
        <Link to="/" className="brand">
          Reelsmith
        </Link>
        <button
          ref={toggle}
          type="button"
          className="menu-toggle"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span>
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          {[...mainLinks, ...(user?.is_admin ? adminLinks : [])].map((l) => (
            <NavLink key={l.to} to={l.to} end={l.to === '/'}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <CartDrawer />
        <div className="account">
          {user ? (
            <Suspense fallback={<span className="muted">…</span>}>
              <UserMenu user={user} />
            </Suspense>
          ) : loading ? (
            <span className="muted">…</span>
          ) : (
            <button className="btn primary" onClick={() => dispatch(authOpened({ mode: 'signin' }))}>
              Sign In
            </button>
          )}
        </div>
      </header>
      <main className="content">{children}</main>
      <PaymentNotice />
      <footer className="footer">
        <nav aria-label="Footer">
          {footerLinks.map((l) => (
            <Link key={l.to} to={l.to}>
              {l.label}
            </Link>
          ))}
        </nav>
        <p className="muted">© {new Date().getFullYear()} Reelsmith</p>
      </footer>
    </div>
  );
}

import { useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router-dom';
import { useEffect } from 'react';

const mainLinks = [
  { to: '/', label: 'Create', end: true },
  { to: '/demos', label: 'Demos' },
  { to: '/library', label: 'Library' },
  { to: '/reels', label: 'My Reels' },
  { to: '/guide', label: 'Guide' },
  { to: '/pricing', label: 'Pricing' },
];

const footerLinks = [
  { to: '/demos', label: 'Demos' },
  { to: '/pricing', label: 'Pricing' },
  { to: '/guide', label: 'Guide' },
  { to: '/about', label: 'About Us' },
  { to: '/hall-of-fame', label: 'Hall of Fame' },
  { to: '/contact', label: 'Contact' },
];

/** The shared layout of every route but /verify-email: top navigation (with a mobile menu) and footer. */
export function Layout() {
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);

  return (
    <div className="shell">
      <header className="topnav">
        <Link to="/" className="brand">
          Reelsmith
        </Link>
        <button
          className="menu-toggle"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span>
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          {mainLinks.map((l) => (
            <NavLink key={l.to} to={l.to} end={l.end}>
              {l.label}
            </NavLink>
          ))}
        </nav>
      </header>
      <main className="content">
        <Outlet />
      </main>
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

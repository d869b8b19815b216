/**
 * Client-side navigation for an app whose pages all have fixed paths (shell/routes.ts): the browser's
 * History API behind a React context, and the few pieces the pages use (Link, NavLink,
 * useLocation, useNavigate, useSearchParams).
 *
 * Why not react-router: it was 37 KB of the 263 KB entry chunk (about 12 KB gzipped) for a table of
 * thirteen fixed paths, and the first load has a budget of 120 KB gzipped (docs/benchmarks.md).
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
} from 'react';

export interface Location {
  pathname: string;
  search: string;
  hash: string;
}

export interface NavigateOptions {
  /** Replace the current history entry instead of adding one (no new Back step). */
  replace?: boolean;
}

type Navigate = (to: string, options?: NavigateOptions) => void;

interface Navigation {
  location: Location;
  navigate: Navigate;
}

const here = (): Location => ({ pathname: window.location.pathname, search: window.location.search, hash: window.location.hash });

const NavigationContext = createContext<Navigation | null>(null);

/** Holds the current location; Back and Forward (popstate) update it as links do. */
export function NavigationProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(here);
  useEffect(() => {
    const onPop = () => setLocation(here());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback<Navigate>((to, options = {}) => {
    const url = new URL(to, window.location.href);
    if (url.origin !== window.location.origin) {
      window.location.assign(url.href);
      return;
    }
    const path = `${url.pathname}${url.search}${url.hash}`;
    if (options.replace) window.history.replaceState(null, '', path);
    else window.history.pushState(null, '', path);
    setLocation(here());
    // A new page starts at its top (Back and Forward keep the browser's own scroll restoration).
    if (!options.replace && !url.hash) window.scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ location, navigate }), [location, navigate]);
  return <NavigationContext.Provider value={value}>{children}</NavigationContext.Provider>;
}

function useNavigation(): Navigation {
  const n = useContext(NavigationContext);
  if (!n) throw new Error('useNavigation outside NavigationProvider');
  return n;
}

export const useLocation = (): Location => useNavigation().location;
export const useNavigate = (): Navigate => useNavigation().navigate;
/** The query string of the current location (read-only: no page writes it). */
export const useSearchParams = (): [URLSearchParams] => {
  const { search } = useLocation();
  return [useMemo(() => new URLSearchParams(search), [search])];
};

/** A plain left click without modifier keys, on a link that opens in this tab: ours to handle. */
const isPlainClick = (e: MouseEvent<HTMLAnchorElement>) =>
  !e.defaultPrevented &&
  e.button === 0 &&
  !e.metaKey &&
  !e.altKey &&
  !e.ctrlKey &&
  !e.shiftKey &&
  (!e.currentTarget.target || e.currentTarget.target === '_self');

export interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
}

/** An ordinary `<a href>` (open in a new tab, copy the address and the like all work) that navigates in place. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const { navigate } = useNavigation();
  return (
    <a
      href={to}
      onClick={(e) => {
        onClick?.(e);
        if (!isPlainClick(e)) return;
        e.preventDefault();
        navigate(to);
      }}
      {...rest}
    />
  );
}

/** A Link marked `aria-current="page"` and class `active` on its page (and, unless `end`, the pages below it). */
export function NavLink({ end = false, className, ...rest }: LinkProps & { end?: boolean }) {
  const { pathname } = useLocation();
  const active = pathname === rest.to || (!end && rest.to !== '/' && pathname.startsWith(`${rest.to.replace(/\/$/, '')}/`));
  return (
    <Link
      {...rest}
      aria-current={active ? 'page' : undefined}
      className={[className, active ? 'active' : null].filter(Boolean).join(' ') || undefined}
    />
  );
}

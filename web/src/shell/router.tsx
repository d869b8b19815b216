import { Fragment, Suspense, use, type ComponentType } from 'react';
import { useLocation } from '../components/navigation';
import { Layout } from './Layout';
import { PageLoading } from '../components/PageLoading';
import type { AppDispatch } from '../base/store';
import { PAGES, pageAt, type PageName } from './routes';

/** A page's code: loaded once, when it is first shown or by preloadPage (its own chunk, CSS included). */
interface PageCode {
  load: () => Promise<ComponentType>;
  /** The page's component, once its code has loaded. */
  loaded?: ComponentType;
  /** Starts the requests of the page's first render, once its code has loaded. */
  prefetch?: (dispatch: AppDispatch) => void;
}
const page = <M,>(
  load: () => Promise<M>,
  pick: (m: M) => ComponentType,
  prefetch?: (m: M) => (dispatch: AppDispatch) => void,
): PageCode => {
  let loading: Promise<ComponentType> | undefined;
  const code: PageCode = {
    load: () =>
      (loading ??= load().then((m) => {
        code.prefetch = prefetch?.(m);
        return (code.loaded = pick(m));
      })),
  };
  return code;
};
/** A public page with public.css (which the features/public index imports for its other users). */
const publicPage =
  <M,>(load: () => Promise<M>) =>
  async () =>
    (await Promise.all([load(), import('../features/public/public.css')]))[0];

// One entry per page on purpose: each page is its own chunk (import() needs a literal path).
/** Every page of the spec's table (section 2), each in its own chunk. */
const pages: Record<PageName, PageCode> = {
  home: page(
    () => import('../pages/HomePage'),
    (m) => m.HomePage,
    (m) => m.prefetchHomePage,
  ),
  demos: page(
    publicPage(() => import('../features/public/DemosPage')),
    (m) => m.DemosPage,
    (m) => m.prefetchDemosPage,
  ),
  guide: page(
    publicPage(() => import('../features/public/GuidePage')),
    (m) => m.GuidePage,
  ),
  pricing: page(
    () => import('../features/pricing/PricingPage'),
    (m) => m.PricingPage,
    (m) => m.prefetchPricingPage,
  ),
  reels: page(
    () => import('../features/reels/ReelsPage'),
    (m) => m.ReelsPage,
  ),
  library: page(
    () => import('../features/library/LibraryPage'),
    (m) => m.LibraryPage,
    (m) => m.prefetchLibraryPage,
  ),
  about: page(
    publicPage(() => import('../features/public/AboutPage')),
    (m) => m.AboutPage,
  ),
  hallOfFame: page(
    publicPage(() => import('../features/public/HallOfFamePage')),
    (m) => m.HallOfFamePage,
  ),
  contact: page(
    publicPage(() => import('../features/public/ContactPage')),
    (m) => m.ContactPage,
  ),
  admin: page(
    () => import('../features/admin/AdminPage'),
    (m) => m.AdminPage,
  ),
  marketplace: page(
    () => import('../features/marketplace/MarketplacePage'),
    (m) => m.MarketplacePage,
  ),
  verifyEmail: page(
    () => import('../pages/VerifyEmailPage'),
    (m) => m.VerifyEmailPage,
  ),
  resetPassword: page(
    () => import('../pages/ResetPasswordPage'),
    (m) => m.ResetPasswordPage,
  ),
};
const NotFoundPage = page(
  publicPage(() => import('../features/public/NotFoundPage')),
  (m) => m.NotFoundPage,
);

/**
 * A page, rendered at once when its code has loaded, else suspended (the page-loading fallback)
 * until it has. Either way the element's type is the page's own component, so the page is never
 * mounted twice.
 */
function PageView({ code }: { code: PageCode }) {
  const Page = code.loaded ?? use(code.load());
  return <Page />;
}
const element = (code: PageCode) => (
  <Suspense fallback={<PageLoading />}>
    <PageView code={code} />
  </Suspense>
);

/**
 * Loads the code of the page at `pathname` (whose HTML preloads it) and starts the requests of its
 * first render. main.tsx waits for it before the first render, so the first paint is the page
 * itself, not an empty page that the page then replaces (one render, one layout, less main-thread
 * work after the first paint), and the page's data is on its way while React renders, not only
 * once it has. Never rejects: code that failed to load fails again in the render, which shows the
 * crash screen.
 */
export function preloadPage(pathname: string, dispatch: AppDispatch): Promise<void> {
  const name = pageAt(pathname);
  const code = name ? pages[name] : NotFoundPage;
  return code
    .load()
    .then(() => code.prefetch?.(dispatch))
    .catch(() => undefined);
}
/**
 * The page of routes.ts at the current path; /verify-email and /reset-password sit outside the
 * shared layout, an unknown path shows the not-found page inside it. A page that throws (or whose
 * code fails to load) shows the crash screen of the ErrorBoundary around it.
 */
export function AppRoutes() {
  const { pathname } = useLocation();
  const name = pageAt(pathname);
  if (name && !PAGES[name].layout) return element(pages[name]);
  // Keyed by page: moving between pages starts the new one fresh (its own state and Suspense).
  return <Layout>{name ? <Fragment key={name}>{element(pages[name])}</Fragment> : element(NotFoundPage)}</Layout>;
}

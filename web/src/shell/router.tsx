import { Fragment, lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { useLocation } from '../components/navigation';
import { Layout } from './Layout';
import { PageLoading } from '../components/PageLoading';
import { PAGES, pageAt, type PageName } from './routes';

/** A page loaded only when it is first shown (its own chunk, CSS included). */
const page = <M,>(load: () => Promise<M>, pick: (m: M) => ComponentType) => lazy(async () => ({ default: pick(await load()) }));
/** A public page with public.css (which the features/public index imports for its other users). */
const publicPage =
  <M,>(load: () => Promise<M>) =>
  async () =>
    (await Promise.all([load(), import('../features/public/public.css')]))[0];

// One lazy entry per page on purpose: each page is its own chunk (import() needs a literal path).
/** Every page of the spec's table (section 2), each in its own chunk. */
const pages: Record<PageName, LazyExoticComponent<ComponentType>> = {
  home: page(
    () => import('../pages/HomePage'),
    (m) => m.HomePage,
  ),
  demos: page(
    publicPage(() => import('../features/public/DemosPage')),
    (m) => m.DemosPage,
  ),
  guide: page(
    publicPage(() => import('../features/public/GuidePage')),
    (m) => m.GuidePage,
  ),
  pricing: page(
    () => import('../features/pricing/PricingPage'),
    (m) => m.PricingPage,
  ),
  reels: page(
    () => import('../features/reels/ReelsPage'),
    (m) => m.ReelsPage,
  ),
  library: page(
    () => import('../features/library/LibraryPage'),
    (m) => m.LibraryPage,
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

const element = (Page: ComponentType) => (
  <Suspense fallback={<PageLoading />}>
    <Page />
  </Suspense>
);
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

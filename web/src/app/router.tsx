import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Route, Routes } from 'react-router-dom';
import { Layout } from './Layout';
import { PageLoading } from '../components/PageLoading';
import { PAGES, type PageName } from './routes';

/** A page loaded only when it is first shown (its own chunk, CSS included). */
const page = <M,>(load: () => Promise<M>, pick: (m: M) => ComponentType) => lazy(async () => ({ default: pick(await load()) }));
/** A public page with public.css (which the features/public index imports for its other users). */
const publicPage =
  <M,>(load: () => Promise<M>) =>
  async () =>
    (await Promise.all([load(), import('../features/public/public.css')]))[0];

/** Every page of the spec's table (section 2), each in its own chunk. */
const pages: Record<PageName, LazyExoticComponent<ComponentType>> = {
  home: page(
    () => import('../features/assembly/HomePage'),
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
const routes = (layout: boolean) =>
  (Object.keys(PAGES) as PageName[])
    .filter((name) => PAGES[name].layout === layout)
    .map((name) => <Route key={name} path={PAGES[name].path} element={element(pages[name])} />);

/**
 * The pages of routes.ts; /verify-email and /reset-password sit outside the shared layout. A page
 * that throws (or whose code fails to load) shows the crash screen of the ErrorBoundary around it.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        {routes(true)}
        <Route path="*" element={element(NotFoundPage)} />
      </Route>
      {routes(false)}
    </Routes>
  );
}

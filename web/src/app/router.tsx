import { createBrowserRouter } from 'react-router-dom';
import { CrashScreen } from '../components/CrashScreen';
import { Layout } from '../components/Layout';
import { HomePage } from '../features/assembly/HomePage';
import {
  AboutPage,
  AdminPage,
  ContactPage,
  DemosPage,
  GuidePage,
  HallOfFamePage,
  LibraryPage,
  MarketplacePage,
  NotFoundPage,
  PricingPage,
  ReelsPage,
} from '../pages/pages';
import { ResetPasswordPage } from '../pages/ResetPasswordPage';
import { VerifyEmailPage } from '../pages/VerifyEmailPage';

/** Every route of the spec's table (section 2). /verify-email and /reset-password sit outside the shared layout. */
export const router = createBrowserRouter([
  {
    element: <Layout />,
    errorElement: <CrashScreen />,
    children: [
      { path: '/', element: <HomePage /> },
      { path: '/demos', element: <DemosPage /> },
      { path: '/guide', element: <GuidePage /> },
      { path: '/pricing', element: <PricingPage /> },
      { path: '/reels', element: <ReelsPage /> },
      { path: '/library', element: <LibraryPage /> },
      { path: '/about', element: <AboutPage /> },
      { path: '/hall-of-fame', element: <HallOfFamePage /> },
      { path: '/contact', element: <ContactPage /> },
      { path: '/admin', element: <AdminPage /> },
      { path: '/footage-marketplace', element: <MarketplacePage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
  { path: '/verify-email', element: <VerifyEmailPage />, errorElement: <CrashScreen /> },
  { path: '/reset-password', element: <ResetPasswordPage />, errorElement: <CrashScreen /> },
]);

import { lazy, Suspense } from 'react';
import { useAppSelector } from '../../base/store';

/** The sign-in dialog's code loads the first time someone opens it, not with every page. */
const AuthModal = lazy(() => import('./AuthModal').then((m) => ({ default: m.AuthModal })));

export function LazyAuthModal() {
  const open = useAppSelector((s) => s.session.modal.open);
  return open ? (
    <Suspense fallback={null}>
      <AuthModal />
    </Suspense>
  ) : null;
}

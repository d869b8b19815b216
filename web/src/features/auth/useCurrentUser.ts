import { useAppSelector } from '../../base/store';
import { useMeQuery } from './auth.api';

/** The signed-in user, checked with the server at start; null when signed out. */
export function useCurrentUser() {
  const token = useAppSelector((s) => s.session.token);
  const q = useMeQuery(undefined, { skip: !token });
  return { user: token ? (q.data ?? null) : null, loading: Boolean(token) && q.isLoading, token };
}

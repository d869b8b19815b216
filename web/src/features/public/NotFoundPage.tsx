import { Link, useLocation } from '../../components/navigation';
import { usePageMeta } from './usePageMeta';

/** Any unknown route, inside the layout, with a way home. */
export function NotFoundPage() {
  usePageMeta('Page not found', 'There is no page at this address on Reelsmith.');
  const { pathname } = useLocation();
  return (
    <section className="page public">
      <h1>Page not found</h1>
      <p>
        There is nothing at <code className="break">{pathname}</code>.
      </p>
      <p className="row">
        <Link to="/" className="btn primary">
          Go Home
        </Link>
        <Link to="/demos" className="btn">
          Watch the demos
        </Link>
      </p>
    </section>
  );
}

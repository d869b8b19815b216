/**
 * Shown while a page's code loads: an empty page. The layout's main area is at least the screen's
 * height, so the footer stays below the fold and nothing moves when the page arrives.
 */
export function PageLoading() {
  return <div className="page-loading" />;
}

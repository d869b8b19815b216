import { useEffect, type ReactNode } from 'react';

/** A page with its title in the document and the tab. */
export function Page({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Reelsmith`;
  }, [title]);
  return (
    <section className="page">
      <h1>{title}</h1>
      {children}
    </section>
  );
}

import { useEffect } from 'react';

const SITE = 'Reelsmith';

/**
 * Gives a route its own document title and meta description (every page calls it once).
 * The description tag is created when index.html has none, and restored when the page leaves.
 */
export function usePageMeta(title: string, description: string) {
  useEffect(() => {
    const previousTitle = document.title;
    document.title = title ? `${title} · ${SITE}` : SITE;
    let tag = document.querySelector<HTMLMetaElement>('meta[name="description"]');
    if (!tag) {
      tag = document.createElement('meta');
      tag.name = 'description';
      document.head.appendChild(tag);
    }
    const previousDescription = tag.content;
    tag.content = description;
    return () => {
      document.title = previousTitle;
      tag.content = previousDescription;
    };
  }, [title, description]);
}

/** One day of the changelog: its date and what shipped. */
export interface ChangelogDay {
  date: string;
  items: string[];
}

/**
 * CHANGELOG.md as days: each `## YYYY-MM-DD` heading starts a day, each `- ` bullet (with its
 * wrapped lines) is one item; anything else (the title, the intro) is left out. Inline code marks
 * are dropped for display.
 */
export function parseChangelog(md: string): ChangelogDay[] {
  const days: ChangelogDay[] = [];
  let day: ChangelogDay | null = null;
  for (const raw of md.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const heading = /^## (\d{4}-\d{2}-\d{2})\s*$/.exec(line);
    if (heading) {
      day = { date: heading[1]!, items: [] };
      days.push(day);
    } else if (/^#/.test(line)) day = null;
    else if (day && line.startsWith('- ')) day.items.push(line.slice(2).trim());
    else if (day && day.items.length && /^\s+\S/.test(raw)) day.items[day.items.length - 1] += ` ${line.trim()}`;
  }
  return days.map((d) => ({ ...d, items: d.items.map((i) => i.replace(/`([^`]*)`/g, '$1')) })).filter((d) => d.items.length);
}

import type { ReactNode } from 'react';
import { capitalise } from './library.api';

/** A library's search box and category filter (and any extra buttons, `children`). */
export function LibraryToolbar({
  label,
  text,
  onText,
  category,
  onCategory,
  categories,
  children,
}: {
  /** The search box's accessible name ('Search videos'). */
  label: string;
  text: string;
  onText: (text: string) => void;
  category: string;
  onCategory: (category: string) => void;
  categories: string[];
  children?: ReactNode;
}) {
  return (
    <div className="library-toolbar" role="search">
      <input
        type="search"
        aria-label={label}
        placeholder="Search by name or category"
        value={text}
        onChange={(e) => onText(e.target.value)}
      />
      <select aria-label="Category" value={category} onChange={(e) => onCategory(e.target.value)}>
        <option value="">All Categories</option>
        {categories.map((c) => (
          <option key={c} value={c}>
            {capitalise(c)}
          </option>
        ))}
      </select>
      {children}
    </div>
  );
}

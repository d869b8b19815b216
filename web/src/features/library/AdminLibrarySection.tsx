import { useState } from 'react';
import { errorDetail } from '../../base/api';
import { useAddToLibraryMutation } from './library.api';

/** Admins only: add video or music files to the stock libraries (the server probes and analyses them). */
export function AdminLibrarySection({ onChanged }: { onChanged: () => void }) {
  const [files, setFiles] = useState<File[]>([]);
  const [category, setCategory] = useState('');
  const [lines, setLines] = useState<string[]>([]);
  const [add, adding] = useAddToLibraryMutation();
  const upload = async () => {
    const out: string[] = [];
    for (const file of files) {
      try {
        const r = await add({ file, category: category.trim() || 'general' }).unwrap();
        out.push(
          `${file.name}: ${r.outcome === 'duplicate' ? 'already in the library' : `added to ${r.kind === 'audio' ? 'music' : 'videos'} (${r.category})`}`,
        );
      } catch (e) {
        out.push(`${file.name}: ${errorDetail(e, 'Upload failed')}`);
      }
      setLines([...out]);
    }
    setFiles([]);
    onChanged();
  };
  return (
    <details className="card" style={{ padding: '1rem', margin: '1rem 0' }}>
      <summary>Library (admin): add videos or music</summary>
      <div className="library-toolbar">
        <input
          type="file"
          multiple
          accept="video/*,audio/*"
          aria-label="Files to add"
          onChange={(e) => setFiles(Array.from(e.target.files ?? []))}
        />
        <input
          type="search"
          aria-label="Category of the files"
          placeholder="Category"
          value={category}
          onChange={(e) => setCategory(e.target.value)}
        />
        <button className="btn primary" onClick={upload} disabled={!files.length || adding.isLoading}>
          {adding.isLoading ? 'Adding…' : 'Add to library'}
        </button>
      </div>
      {lines.length > 0 && (
        <ul aria-live="polite">
          {lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
    </details>
  );
}

import { useState } from 'react';
import { errorDetail } from '../../base/api';
import { Modal } from '../../components/Modal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { ClipCard } from './ClipCard';
import { LibraryToolbar } from './LibraryToolbar';
import { LIBRARY_PAGE, useSelectVideosMutation, useVideoLibraryQuery, type SelectedVideo, type VideoLibraryFile } from './library.api';
import './library.css';

export interface ChosenVideo extends SelectedVideo {
  size: number;
  duration: number;
}

/**
 * Home's video library browser: search, categories, and multi-select up to the plan's cap (the
 * server checks it again when selecting). Choosing clips replaces any uploaded videos.
 */
export function VideoLibraryModal({
  cap,
  capMessage,
  initial,
  onClose,
  onChoose,
}: {
  cap: number;
  capMessage: string;
  initial: ChosenVideo[];
  onClose: () => void;
  onChoose: (videos: ChosenVideo[]) => void;
}) {
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [limit, setLimit] = useState(LIBRARY_PAGE);
  const [picked, setPicked] = useState(
    () => new Map(initial.map((v) => [v.key, v as Pick<ChosenVideo, 'key' | 'filename' | 'size' | 'duration'>])),
  );
  const [error, setError] = useState('');
  const list = useVideoLibraryQuery({ q: q.trim(), category, limit, offset: 0 });
  const [select, selecting] = useSelectVideosMutation();

  const toggle = (f: VideoLibraryFile) => {
    setError('');
    setPicked((m) => {
      const next = new Map(m);
      if (next.has(f.key)) next.delete(f.key);
      else if (next.size >= cap) {
        setError(capMessage);
        return m;
      } else next.set(f.key, { key: f.key, filename: f.filename, size: f.size, duration: f.duration });
      return next;
    });
  };
  const confirm = async () => {
    try {
      const chosen = [...picked.values()];
      const r = await select(chosen.map((c) => c.key)).unwrap();
      const byKey = new Map(chosen.map((c) => [c.key, c]));
      onChoose(r.selected_videos.map((s) => ({ ...s, size: byKey.get(s.key)?.size ?? 0, duration: byKey.get(s.key)?.duration ?? 0 })));
      onClose();
    } catch (e) {
      setError(errorDetail(e, 'Failed to select library videos'));
    }
  };
  return (
    <Modal title="Video Library" onClose={onClose}>
      <div className="library-browser">
        {/* Same toolbar as MusicLibraryModal and LibraryPage by design: each lists its own kind and picks differently. */}
        <LibraryToolbar
          label="Search videos"
          text={q}
          onText={setQ}
          category={category}
          onCategory={setCategory}
          categories={list.data?.categories ?? []}
        />
        <p className="muted" data-testid="selection-count">
          {picked.size} of up to {cap} clips selected
        </p>
        {list.isError ? (
          <ErrorAlert>Failed to load video library. The system may still be initializing.</ErrorAlert>
        ) : list.isLoading ? (
          <div className="spinner" role="status" aria-label="Loading videos" />
        ) : list.data && list.data.files.length === 0 ? (
          <p className="empty-state">{q.trim() || category ? 'No videos match your search' : 'No videos found'}</p>
        ) : (
          <ul className="clip-grid" aria-label="Library videos">
            {list.data?.files.map((f) => (
              <ClipCard
                key={f.key}
                file={f}
                selected={picked.has(f.key)}
                onOpen={toggle}
                label={`${picked.has(f.key) ? 'Deselect' : 'Select'} ${f.filename}`}
              />
            ))}
          </ul>
        )}
        {list.data && list.data.total > limit && (
          <button className="btn" onClick={() => setLimit((l) => l + LIBRARY_PAGE)}>
            Show more
          </button>
        )}
        {error && <ErrorAlert>{error}</ErrorAlert>}
        <div className="row">
          <button className="btn" onClick={onClose}>
            Cancel
          </button>
          <button className="btn primary" onClick={confirm} disabled={!picked.size || selecting.isLoading}>
            {selecting.isLoading ? 'Selecting…' : `Use ${picked.size} clip${picked.size === 1 ? '' : 's'}`}
          </button>
        </div>
      </div>
    </Modal>
  );
}

import { useEffect, useRef, useState } from 'react';
import { errorDetail } from '../../base/api';
import { Modal } from '../../components/Modal';
import {
  capitalise,
  clock,
  useCacheMusicMutation,
  useMusicAnalysisQuery,
  useMusicLibraryQuery,
  useSelectMusicMutation,
  type MusicLibraryFile,
} from './library.api';
import { Waveform } from '../../components/Waveform';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LibraryToolbar } from './LibraryToolbar';
import './library.css';

export interface ChosenMusic {
  key: string;
  object_key: string;
  filename: string;
  /** What to call it (the file name without its extension). */
  title: string;
  size: number;
  duration: number;
  bpm: number;
}

type Preview = { key: string; state: 'loading' | 'playing' } | null;

/**
 * Home's music library browser: one track previews at a time (Play, loading, Stop; a second click
 * or the end of the track stops it), BPM and duration per track, and the selected track's
 * waveform with its beat markers. Choosing a track replaces an uploaded audio file.
 */
export function MusicLibraryModal({ onClose, onChoose }: { onClose: () => void; onChoose: (m: ChosenMusic) => void }) {
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const list = useMusicLibraryQuery({ q: q.trim(), category, limit: 200 });
  const [picked, setPicked] = useState<MusicLibraryFile | null>(null);
  // A track picked and then searched away is not the one 'Use this track' would use: only a listed one is.
  const selected = picked && list.data?.files.some((f) => f.key === picked.key) ? picked : null;
  const analysis = useMusicAnalysisQuery(selected?.key ?? '', { skip: !selected });
  const [preview, setPreview] = useState<Preview>(null);
  const [error, setError] = useState('');
  const audio = useRef<HTMLAudioElement | null>(null);
  const [cache] = useCacheMusicMutation();
  const [select, selecting] = useSelectMusicMutation();

  // Each preview request has a number; a later click (or Stop) makes an earlier one moot.
  const attempt = useRef(0);
  const stop = () => {
    attempt.current += 1;
    audio.current?.pause();
    audio.current = null;
    setPreview(null);
  };
  useEffect(() => () => audio.current?.pause(), []);

  const toggle = async (f: MusicLibraryFile) => {
    const same = preview?.key === f.key;
    stop();
    if (same) return;
    const mine = attempt.current;
    setError('');
    setPreview({ key: f.key, state: 'loading' });
    try {
      const { preview_url } = await cache(f.key).unwrap();
      if (attempt.current !== mine) return;
      const el = new Audio(preview_url);
      audio.current = el;
      el.onended = () => attempt.current === mine && stop();
      await el.play();
      if (attempt.current === mine) setPreview({ key: f.key, state: 'playing' });
      else el.pause();
    } catch {
      if (attempt.current !== mine) return;
      stop();
      setError(`Could not load preview for ${f.title}.`);
    }
  };
  const choose = async () => {
    if (!selected) return;
    try {
      const r = await select(selected.filename).unwrap();
      stop();
      onChoose({ ...selected, object_key: r.object_key });
      onClose();
    } catch (e) {
      setError(errorDetail(e, 'Failed to select music'));
    }
  };
  return (
    <Modal
      title="Music Library"
      onClose={() => {
        stop();
        onClose();
      }}
    >
      <div className="library-browser">
        {/* Same toolbar as VideoLibraryModal by design: each lists its own kind and picks differently. */}
        <LibraryToolbar
          label="Search music"
          text={q}
          onText={setQ}
          category={category}
          onCategory={setCategory}
          categories={list.data?.categories ?? []}
        />
        {list.isError ? (
          <ErrorAlert>
            Failed to load music library{'status' in (list.error ?? {}) ? ` (${String((list.error as { status: unknown }).status)})` : ''}
          </ErrorAlert>
        ) : list.isLoading ? (
          <div className="spinner" role="status" aria-label="Loading music" />
        ) : list.data && list.data.files.length === 0 ? (
          <p className="empty-state">{q.trim() || category ? 'No tracks match your search' : 'No music found'}</p>
        ) : (
          <ul className="track-list" aria-label="Music tracks">
            {list.data?.files.map((f) => {
              const p = preview?.key === f.key ? preview.state : 'idle';
              return (
                <li key={f.key} className={selected?.key === f.key ? 'selected' : ''} data-testid="track">
                  <button
                    className="btn"
                    onClick={() => void toggle(f)}
                    disabled={p === 'loading'}
                    aria-label={`${p === 'playing' ? 'Stop' : 'Play'} ${f.title}`}
                  >
                    {p === 'loading' ? 'Loading…' : p === 'playing' ? 'Stop' : 'Play'}
                  </button>
                  <button className="link track-name" onClick={() => setPicked(f)} aria-pressed={selected?.key === f.key} title={f.title}>
                    {f.title}
                  </button>
                  <span className="tag">{capitalise(f.category)}</span>
                  <span className="muted">{f.bpm > 0 ? `${Math.round(f.bpm)} BPM` : 'No beat'}</span>
                  <span className="muted">{clock(f.duration)}</span>
                </li>
              );
            })}
          </ul>
        )}
        {selected && (
          <div aria-live="polite">
            <p>
              <strong>{selected.title}</strong> · {selected.bpm > 0 ? `${Math.round(selected.bpm)} BPM` : 'no steady beat'} ·{' '}
              {clock(selected.duration)}
            </p>
            {analysis.data ? (
              <Waveform peaks={analysis.data.peaks} beats={analysis.data.beats} duration={analysis.data.duration} />
            ) : analysis.isError ? (
              <p className="error">Could not load the waveform.</p>
            ) : (
              <div className="spinner" role="status" aria-label="Loading waveform" />
            )}
          </div>
        )}
        {error && <ErrorAlert>{error}</ErrorAlert>}
        <div className="row">
          <button
            className="btn"
            onClick={() => {
              stop();
              onClose();
            }}
          >
            Cancel
          </button>
          <button className="btn primary" onClick={choose} disabled={!selected || selecting.isLoading}>
            {selecting.isLoading ? 'Selecting…' : 'Use this track'}
          </button>
        </div>
      </div>
    </Modal>
  );
}

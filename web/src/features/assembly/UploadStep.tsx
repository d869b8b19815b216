import { useRef, useState, type DragEvent } from 'react';
import type { User } from '../../api/types';
import { authOpened } from '../../app/session';
import { useAppDispatch } from '../../app/store';
import { LibraryPickers } from '../library/LibraryPickers';
import { MB, sizeLabel } from './steps';
import type { JobForm } from './useJobForm';

/** Step 1: video clips and one music track, by file picker or drag and drop. */
export function UploadStep({ form, user }: { form: JobForm; user: User | null }) {
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const { videos, audio, busy, libraryVideos, libraryMusic } = form;
  const dispatch = useAppDispatch();
  const [browsing, setBrowsing] = useState<'video' | 'music' | null>(null);
  const browse = (which: 'video' | 'music') => (user ? setBrowsing(which) : dispatch(authOpened({ mode: 'signin' })));
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    form.addFiles(Array.from(e.dataTransfer.files));
  };
  return (
    <section className="step" aria-labelledby="step1">
      <h2 id="step1">
        <span className="step-no">1</span> Upload Media
      </h2>
      <div
        className={`dropzone${dragging ? ' over' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid="dropzone"
      >
        <p>Drag and drop video clips and one music track here, or</p>
        <button className="btn" onClick={() => picker.current?.click()} disabled={busy}>
          Choose Files
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          accept="video/*,audio/*"
          hidden
          aria-label="Choose files"
          onChange={(e) => form.addFiles(Array.from(e.target.files ?? []))}
        />
        <p>
          Or pick from the library:{' '}
          <button className="btn" onClick={() => browse('video')} disabled={busy}>
            Browse Video Library
          </button>{' '}
          <button className="btn" onClick={() => browse('music')} disabled={busy}>
            Browse Music Library
          </button>
        </p>
        <p className="muted">
          Video: MP4, MOV, AVI, MKV · Audio: MP3, WAV, AAC, M4A
          {user && ` · Up to ${sizeLabel(user.entitlements.upload_cap_bytes)} in total`}
        </p>
      </div>
      {user && <LibraryPickers form={form} user={user} open={browsing} onClose={() => setBrowsing(null)} />}
      {(videos.length > 0 || audio || libraryVideos.length > 0 || libraryMusic) && (
        <ul className="files" aria-label="Selected files">
          {videos.map((f, i) => (
            <li key={`${f.name}-${i}`}>
              <span className="tag">Video</span> {f.name} <span className="muted">{(f.size / MB).toFixed(1)} MB</span>
              <button className="link" onClick={() => form.removeVideo(i)} disabled={busy} aria-label={`Remove ${f.name}`}>
                Remove
              </button>
            </li>
          ))}
          {libraryVideos.map((v) => (
            <li key={v.key}>
              <span className="tag">Library</span> {v.filename} <span className="muted">{(v.size / MB).toFixed(1)} MB</span>
              <button
                className="link"
                onClick={() => form.chooseLibraryVideos(libraryVideos.filter((x) => x.key !== v.key))}
                disabled={busy}
                aria-label={`Remove ${v.filename}`}
              >
                Remove
              </button>
            </li>
          ))}
          {libraryMusic && (
            <li>
              <span className="tag">Library music</span> {libraryMusic.filename}{' '}
              <span className="muted">{libraryMusic.bpm > 0 ? `${Math.round(libraryMusic.bpm)} BPM` : ''}</span>
              <button
                className="link"
                onClick={() => form.chooseLibraryMusic(undefined)}
                disabled={busy}
                aria-label={`Remove ${libraryMusic.filename}`}
              >
                Remove
              </button>
            </li>
          )}
          {audio && (
            <li>
              <span className="tag">Music</span> {audio.name} <span className="muted">{(audio.size / MB).toFixed(1)} MB</span>
              <button className="link" onClick={form.removeAudio} disabled={busy} aria-label={`Remove ${audio.name}`}>
                Remove
              </button>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}

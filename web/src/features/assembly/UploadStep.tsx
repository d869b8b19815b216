import { useRef, useState, type DragEvent } from 'react';
import type { User } from '../../api/types';
import { authOpened } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import { ErrorAlert } from '../../components/ErrorAlert';
import { LibraryPickers } from '../library';
import './assembly.css';
import { MediaTray } from './MediaTray';
import { sizeLabel } from './steps';
import type { JobForm } from './useJobForm';

/** Step 1: video clips and one music track, by file picker or drag and drop; they upload at once into the tray. */
export function UploadStep({ form, user }: { form: JobForm; user: User | null }) {
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const { busy } = form;
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
        <p>
          <span className="keys-hint">Drag and drop video clips and one music track here, or</span>
          <span className="touch-hint">Add video clips and one music track:</span>
        </p>
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
      {form.refusedNote && <ErrorAlert data-testid="tray-refused">{form.refusedNote}</ErrorAlert>}
      {user && <LibraryPickers form={form} user={user} open={browsing} onClose={() => setBrowsing(null)} />}
      <MediaTray form={form} />
    </section>
  );
}

import { useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { errorDetail } from '../../app/api';
import { authOpened } from '../../app/session';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { Page } from '../../pages/Page';
import { useCurrentUser } from '../auth/useCurrentUser';
import { loadDefaults } from '../settings/defaults';
import {
  isFinal,
  uploadFile,
  useCreateJobMutation,
  useEstimateQuery,
  useJobStatusQuery,
  type JobRequest,
  type Pacing,
} from './assembly.api';
import { FREE_CAP, MB, PAID_CAP, PROGRESS_STEPS, acceptDropped, stepFor } from './steps';

type Phase = { kind: 'idle' } | { kind: 'uploading'; line: string } | { kind: 'submitting' } | { kind: 'job'; id: string };

const FAILED_CARD = 'Something went wrong. Please try again or contact support.';
const COUNTER_KEY = 'reelsmith.stats.totalreels';

function initialSettings() {
  const d = loadDefaults();
  return {
    pacing: d.defaultPacing as Pacing,
    beatMapping: d.defaultEnableBeatMapping,
    intelligence: d.defaultEnableIntelligence,
    fades: d.defaultEnableFades,
    letterbox: d.defaultEnableLetterbox,
    offers: d.defaultGetFootageOffers,
    titleEnabled: true,
    titleText: 'My Awesome Video',
    font: 'Roboto-Bold.ttf' as JobRequest['title_config']['font'],
    fontSize: 72,
    position: 'center' as JobRequest['title_config']['position'],
    fadeIn: 2,
    fadeOut: 2,
    outputFilename: 'reel_output.mp4',
  };
}

/** Home: the assembly tool in three steps (spec section 2). */
export function HomePage() {
  const dispatch = useAppDispatch();
  const token = useAppSelector((s) => s.session.token);
  const { user } = useCurrentUser();
  const [videos, setVideos] = useState<File[]>([]);
  const [audio, setAudio] = useState<File | undefined>();
  const [s, setS] = useState(initialSettings);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [error, setError] = useState('');
  const [dragging, setDragging] = useState(false);
  const [createJob] = useCreateJobMutation();
  const picker = useRef<HTMLInputElement>(null);

  const totalBytes = useMemo(() => [...videos, ...(audio ? [audio] : [])].reduce((n, f) => n + f.size, 0), [videos, audio]);
  const estimate = useEstimateQuery({ pacing_preset: s.pacing, has_music: Boolean(audio), total_source_bytes: totalBytes });
  const credits = estimate.data?.credits;
  const paid = Boolean(user && user.subscription.plan !== 'free' && user.subscription.status === 'active');
  const unlimited = Boolean(user && (user.is_admin || user.is_guest));
  const cap = paid || unlimited ? PAID_CAP : FREE_CAP;
  const shortOfCredits = Boolean(user && paid && !unlimited && credits !== undefined && user.credits < credits);

  const addFiles = (files: File[]) => {
    const { videos: v, audio: a } = acceptDropped(files, Boolean(audio));
    setVideos((prev) => [...prev, ...v]);
    if (a) setAudio(a);
    setError('');
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    addFiles(Array.from(e.dataTransfer.files));
  };

  const generate = async () => {
    setError('');
    if (!user) return dispatch(authOpened({ mode: 'signin' }));
    // Comfort checks; the server enforces every one of them.
    if (!videos.length) return setError('Please add at least one video file or select from library.');
    if (totalBytes > cap) return setError(`Total upload size exceeds ${cap === PAID_CAP ? '3GB' : '600MB'} limit.`);
    if (!unlimited && !paid && user.daily_free_used && credits !== undefined && user.credits < credits)
      return setError('Insufficient credits or daily limit reached');
    if (shortOfCredits) return setError('Insufficient credits or daily limit reached');
    const keys: string[] = [];
    let musicKey: string | undefined;
    for (const f of [...videos, ...(audio ? [audio] : [])]) {
      try {
        const r = await uploadFile(f, token, (x) => setPhase({ kind: 'uploading', line: `Uploading ${f.name}… ${Math.round(x * 100)}%` }));
        if (f === audio) musicKey = r.object_key;
        else keys.push(r.object_key);
      } catch (e) {
        setPhase({ kind: 'idle' });
        return setError(`Failed to upload ${f.name}: ${(e as Error).message}`);
      }
    }
    setPhase({ kind: 'submitting' });
    const request: JobRequest = {
      media_files: keys,
      music_file: musicKey,
      output_filename: s.outputFilename || 'reel_output.mp4',
      pacing_preset: s.pacing,
      // Beat mapping is sent as on only if music is present.
      enable_beat_mapping: s.beatMapping && Boolean(musicKey),
      enable_intelligence: s.intelligence,
      title_config: { enabled: s.titleEnabled, text: s.titleText, font: s.font, font_size: s.fontSize, position: s.position },
      enable_fades: s.fades,
      fade_in_duration_sec: s.fadeIn,
      fade_out_duration_sec: s.fadeOut,
      enable_letterbox: s.letterbox,
      get_footage_offers: s.offers,
    };
    try {
      const { job_id } = await createJob({ request, idempotencyKey: crypto.randomUUID() }).unwrap();
      setPhase({ kind: 'job', id: job_id });
    } catch (e) {
      setPhase({ kind: 'idle' });
      setError(errorDetail(e, 'Job creation failed'));
    }
  };

  const reset = (clearFiles: boolean) => {
    setPhase({ kind: 'idle' });
    setError('');
    if (clearFiles) {
      setVideos([]);
      setAudio(undefined);
    }
  };

  const busy = phase.kind !== 'idle';
  return (
    <Page title="Create a Reel">
      <p className="lead">Turn your clips and a music track into an edited highlight reel, cut on the beat.</p>

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
            onChange={(e) => addFiles(Array.from(e.target.files ?? []))}
          />
          <p className="muted">
            Video: MP4, MOV, AVI, MKV · Audio: MP3, WAV, AAC, M4A · Up to {cap === PAID_CAP ? '3GB' : '600MB'} in total
          </p>
        </div>
        {(videos.length > 0 || audio) && (
          <ul className="files" aria-label="Selected files">
            {videos.map((f, i) => (
              <li key={`${f.name}-${i}`}>
                <span className="tag">Video</span> {f.name} <span className="muted">{(f.size / MB).toFixed(1)} MB</span>
                <button
                  className="link"
                  onClick={() => setVideos(videos.filter((_, j) => j !== i))}
                  disabled={busy}
                  aria-label={`Remove ${f.name}`}
                >
                  Remove
                </button>
              </li>
            ))}
            {audio && (
              <li>
                <span className="tag">Music</span> {audio.name} <span className="muted">{(audio.size / MB).toFixed(1)} MB</span>
                <button className="link" onClick={() => setAudio(undefined)} disabled={busy} aria-label={`Remove ${audio.name}`}>
                  Remove
                </button>
              </li>
            )}
          </ul>
        )}
      </section>

      <section className="step" aria-labelledby="step2">
        <h2 id="step2">
          <span className="step-no">2</span> Configure Settings
        </h2>
        <div className="settings form">
          <label>
            Pacing
            <select value={s.pacing} onChange={(e) => setS({ ...s, pacing: e.target.value as Pacing })}>
              <option value="relaxed">Relaxed</option>
              <option value="standard">Standard</option>
              <option value="high-energy">High energy</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={s.beatMapping} onChange={(e) => setS({ ...s, beatMapping: e.target.checked })} /> Beat mapping{' '}
            {!audio && <span className="muted">(needs music)</span>}
          </label>
          <label className="check">
            <input type="checkbox" checked={s.intelligence} onChange={(e) => setS({ ...s, intelligence: e.target.checked })} /> Intelligence
            (best moments)
          </label>
          <label className="check">
            <input type="checkbox" checked={s.titleEnabled} onChange={(e) => setS({ ...s, titleEnabled: e.target.checked })} /> Title
          </label>
          {s.titleEnabled && (
            <>
              <label>
                Title text
                <input value={s.titleText} maxLength={200} onChange={(e) => setS({ ...s, titleText: e.target.value })} />
              </label>
              <label>
                Font
                <select value={s.font} onChange={(e) => setS({ ...s, font: e.target.value as typeof s.font })}>
                  <option value="Roboto-Bold.ttf">Roboto Bold</option>
                  <option value="Arial-Bold.ttf">Arial Bold</option>
                  <option value="Helvetica-Bold.ttf">Helvetica Bold</option>
                </select>
              </label>
              <label>
                Font size
                <input
                  type="number"
                  min={8}
                  max={400}
                  value={s.fontSize}
                  onChange={(e) => setS({ ...s, fontSize: Number(e.target.value) || 72 })}
                />
              </label>
              <label>
                Position
                <select value={s.position} onChange={(e) => setS({ ...s, position: e.target.value as typeof s.position })}>
                  <option value="top">Top</option>
                  <option value="center">Center</option>
                  <option value="bottom">Bottom</option>
                </select>
              </label>
            </>
          )}
          <label className="check">
            <input type="checkbox" checked={s.fades} onChange={(e) => setS({ ...s, fades: e.target.checked })} /> Fades
          </label>
          <label className="check">
            <input type="checkbox" checked={s.letterbox} onChange={(e) => setS({ ...s, letterbox: e.target.checked })} /> Letterbox
          </label>
          <label className="check">
            <input type="checkbox" checked={s.offers} onChange={(e) => setS({ ...s, offers: e.target.checked })} /> Get footage offers
          </label>
          <label>
            Output filename
            <input value={s.outputFilename} maxLength={200} onChange={(e) => setS({ ...s, outputFilename: e.target.value })} />
          </label>
        </div>
      </section>

      <section className="step" aria-labelledby="step3">
        <h2 id="step3">
          <span className="step-no">3</span> Generate
        </h2>
        <p data-testid="estimate">
          {credits === undefined ? 'Estimating cost…' : `Estimated cost: ${credits} credits`}
          {user &&
            !paid &&
            !unlimited &&
            (user.daily_free_used
              ? ' · Your free video for today is used (resets at midnight UTC).'
              : ' · Covered by your free video of the day (one per UTC day).')}
          {unlimited && ' · Unlimited account: not charged.'}
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {phase.kind === 'idle' && (
          <button
            className="btn primary big"
            onClick={generate}
            disabled={shortOfCredits}
            title={shortOfCredits ? 'Not enough credits for this reel' : undefined}
          >
            Generate Reel
          </button>
        )}
        {phase.kind === 'uploading' && <p className="notice">{phase.line}</p>}
        {phase.kind === 'submitting' && <p className="notice">Creating video job…</p>}
        {phase.kind === 'job' && <JobCard jobId={phase.id} onAnother={() => reset(false)} onStartOver={() => reset(true)} />}
      </section>
    </Page>
  );
}

/** The job progress card: live status, the step label, the real percentage, and the result. */
function JobCard({ jobId, onAnother, onStartOver }: { jobId: string; onAnother: () => void; onStartOver: () => void }) {
  // Poll every 2 s only while the socket is not delivering, and never after the end.
  const [poll, setPoll] = useState(2000);
  const { data, error } = useJobStatusQuery(jobId, { pollingInterval: poll, skipPollingIfUnfocused: false });
  const done = isFinal(data);
  useEffect(() => setPoll(done || data?.live ? 0 : 2000), [done, data?.live]);
  const counted = useRef(false);
  useEffect(() => {
    if (done && data?.status === 'completed' && !counted.current) {
      counted.current = true; // the reel counter rises by one per completed reel
      localStorage.setItem(COUNTER_KEY, String(Number(localStorage.getItem(COUNTER_KEY) ?? 5321) + 1));
    }
  }, [done, data?.status]);

  if (error && !data) return <p className="error">{errorDetail(error, 'Status check failed')}</p>;
  const status = data?.status ?? 'queued';
  const progress = data?.progress ?? 0;
  return (
    <div className="card job-card" aria-live="polite" data-testid="job-card">
      <div className="job-head">
        <strong>{status === 'failed' ? 'Failed' : stepFor(progress, status)}</strong>
        <span className="muted">{status === 'failed' ? '' : `${progress}%`}</span>
      </div>
      {status !== 'failed' && (
        <div className="bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress}>
          <div style={{ width: `${progress}%` }} />
        </div>
      )}
      <ol className="job-steps">
        {PROGRESS_STEPS.map((st) => (
          <li key={st.label} className={progress >= st.at && status !== 'failed' ? 'reached' : ''}>
            {st.label}
          </li>
        ))}
      </ol>
      {status === 'completed' && data?.download_url && (
        <div className="row">
          <a className="btn primary" href={data.download_url} download>
            Download
          </a>
          <button className="btn" onClick={onAnother}>
            Create Another Video
          </button>
        </div>
      )}
      {status === 'failed' && (
        <>
          <p className="error">Error: {data?.message}</p>
          <p>{FAILED_CARD}</p>
          <button className="btn" onClick={onStartOver}>
            Start Over
          </button>
        </>
      )}
      {!done && (
        <div className="row">
          <button className="btn" onClick={onStartOver}>
            Start Over
          </button>
        </div>
      )}
    </div>
  );
}

import { useEffect, useRef, useState } from 'react';
import { errorDetail } from '../../app/api';
import { isFinal, useJobStatusQuery } from './assembly.api';
import { PROGRESS_STEPS, stepFor } from './steps';

const FAILED_CARD = 'Something went wrong. Please try again or contact support.';
const COUNTER_KEY = 'reelsmith.stats.totalreels';

/** The job progress card: live status, the step label, the real percentage, and the result. */
export function JobCard({ jobId, onAnother, onStartOver }: { jobId: string; onAnother: () => void; onStartOver: () => void }) {
  // Poll every 2 s while the socket is not delivering; a slow check while it is (a status message
  // lost in transit must not leave the card waiting); never after the end.
  const [poll, setPoll] = useState(2000);
  const { data, error } = useJobStatusQuery(jobId, { pollingInterval: poll, skipPollingIfUnfocused: false });
  const done = isFinal(data);
  useEffect(() => setPoll(done ? 0 : data?.live ? 15_000 : 2000), [done, data?.live]);
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

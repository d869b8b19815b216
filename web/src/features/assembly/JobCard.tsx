import { useEffect, useRef, useState } from 'react';
import { Link } from '../../components/navigation';
import { errorDetail } from '../../base/api';
import { Modal } from '../../components/Modal';
import { ReelPlayer } from '../../components/ReelPlayer';
import { isFinal, useCancelJobMutation, useJobStatusQuery } from './assembly.api';
import { PROGRESS_STEPS, stepFor, stepsReached } from './steps';

const FAILED_CARD = 'Something went wrong. Please try again or contact support.';
const COUNTER_KEY = 'reelsmith.stats.totalreels';

/**
 * The job progress card: live status, the step label, the real percentage, and the result: the
 * finished reel plays in place, with Download beside it and a link to My Reels. 'Start Over'
 * while the job runs asks whether to cancel it (the render stops, the reservation is released).
 */
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

  const [confirming, setConfirming] = useState(false);
  const [cancel, cancelling] = useCancelJobMutation();
  const cancelJob = async () => {
    try {
      await cancel(jobId).unwrap();
      setConfirming(false);
    } catch {
      setConfirming(false); // it finished meanwhile (409) or the message shows below
    }
  };

  if (error && !data)
    return (
      <div className="card job-card">
        <p className="error">{errorDetail(error, 'Status check failed')}</p>
        <button className="btn" onClick={onStartOver}>
          Start Over
        </button>
      </div>
    );
  const status = data?.status ?? 'queued';
  if (status === 'cancelled')
    return (
      <div className="card job-card" aria-live="polite" data-testid="job-card">
        <div className="job-head">
          <strong>Cancelled</strong>
        </div>
        <p>The reel was cancelled; nothing was charged.</p>
        <button className="btn" onClick={onStartOver}>
          Start Over
        </button>
      </div>
    );
  const progress = data?.progress ?? 0;
  // The words, the bar and the list of steps all follow the same report.
  const step = stepFor(progress, status, data?.message);
  const reached = stepsReached(step);
  return (
    <div className="card job-card" aria-live="polite" data-testid="job-card">
      <div className="job-head">
        <strong data-testid="job-step">{status === 'failed' ? 'Failed' : step}</strong>
        <span className="muted">{status === 'failed' ? '' : `${progress}%`}</span>
      </div>
      {status !== 'failed' && (
        <div className="bar" role="progressbar" aria-label="Reel progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress}>
          <div style={{ width: `${progress}%` }} />
        </div>
      )}
      <ol className="job-steps">
        {PROGRESS_STEPS.map((st, i) => (
          <li
            key={st.label}
            className={i <= reached && status !== 'failed' ? 'reached' : ''}
            aria-current={st.label === step ? 'step' : undefined}
          >
            {st.label}
          </li>
        ))}
      </ol>
      {status === 'completed' && data?.download_url && (
        <>
          <ReelPlayer className="reel-player" src={data.download_url} controls playsInline maxHeightVh={60} data-testid="reel-player" />
          <div className="row wrap">
            <a className="btn primary" href={data.download_url} download>
              Download
            </a>
            <Link className="btn" to="/reels">
              My Reels
            </Link>
            <button className="btn" onClick={onAnother}>
              Create Another Video
            </button>
          </div>
        </>
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
          <button className="btn" onClick={() => setConfirming(true)}>
            Start Over
          </button>
        </div>
      )}
      {confirming && (
        <Modal title="Cancel this reel?" onClose={() => setConfirming(false)}>
          <p>Your reel is still being made. Cancel it and start over? The render stops and nothing is charged.</p>
          {cancelling.error && <p className="error">{errorDetail(cancelling.error, 'Could not cancel')}</p>}
          <div className="row wrap">
            <button className="btn primary" onClick={cancelJob} disabled={cancelling.isLoading}>
              {cancelling.isLoading ? 'Cancelling…' : 'Cancel the reel'}
            </button>
            <button className="btn" onClick={() => setConfirming(false)}>
              Keep it running
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}

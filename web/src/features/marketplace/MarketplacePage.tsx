import { useCallback, useEffect, useState } from 'react';
import { errorDetail } from '../../base/api';
import { useAppSelector } from '../../base/store';
import { Modal } from '../../components/Modal';
import { Page } from '../../components/Page';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useCurrentUser } from '../auth';
import {
  DEFAULT_CASH,
  DEFAULT_CREDITS,
  money,
  useDeleteClipMutation,
  useFootageClipsQuery,
  useMakeOfferMutation,
  useMarkPayoutPaidMutation,
  usePayoutsQuery,
  type FootageClip,
} from './marketplace.api';
import { formatDate, formatDecimal } from '../../base/format';
import './marketplace.css';

const statusLabel: Record<FootageClip['status'], string> = {
  pending: 'New',
  cash_offered: 'Cash offered',
  credits_offered: 'Credits offered',
  purchased: 'Purchased',
  rejected: 'Rejected',
  removed: 'Removed',
};

const day = formatDate;

/** /footage-marketplace: admin review of the clips users opted in to offers. */
export function MarketplacePage() {
  const { user, loading } = useCurrentUser();
  if (loading)
    return (
      <Page title="Footage Marketplace">
        <div className="spinner" role="status" aria-label="Loading" />
      </Page>
    );
  if (!user?.is_admin)
    return (
      <Page title="Footage Marketplace">
        <ErrorAlert>Access Denied - This page is only accessible to administrators.</ErrorAlert>
      </Page>
    );
  return (
    <Page title="Footage Marketplace">
      <Clips />
      <Payouts />
    </Page>
  );
}

function Clips() {
  const q = useFootageClipsQuery();
  const [playing, setPlaying] = useState<FootageClip | null>(null);
  // Stable, so the player does not fetch the clip again when the list refreshes.
  const closePlayer = useCallback(() => setPlaying(null), []);
  if (q.isLoading) return <div className="spinner" role="status" aria-label="Loading clips" />;
  if (q.isError || !q.data)
    return (
      <div className="mk-banner" role="alert">
        <strong>Marketplace System Initializing</strong>
        <p>Failed to load footage clips. The marketplace system may still be initializing.</p>
        <button className="btn" onClick={() => void q.refetch()}>
          Retry
        </button>
      </div>
    );
  const { clips, total, pending } = q.data;
  return (
    <>
      <div className="mk-counts" aria-live="polite">
        <span>
          <strong data-testid="clip-count">{total}</strong> clips
        </span>
        <span>
          <strong data-testid="new-count">{pending}</strong> new
        </span>
      </div>
      {clips.length === 0 ? (
        <p className="muted">No clips available</p>
      ) : (
        <div className="mk-grid">
          {clips.map((c) => (
            <ClipCard key={c.id} clip={c} onPlay={() => setPlaying(c)} />
          ))}
        </div>
      )}
      {playing && <Player clip={playing} onClose={closePlayer} />}
    </>
  );
}

function ClipCard({ clip: c, onPlay }: { clip: FootageClip; onPlay: () => void }) {
  const [makeOffer, offering] = useMakeOfferMutation();
  const [remove, removing] = useDeleteClipMutation();
  const [cash, setCash] = useState(String(DEFAULT_CASH.toFixed(2)));
  const [credits, setCredits] = useState(String(DEFAULT_CREDITS));
  const offer = async (type: 'cash' | 'credits') => {
    const amount = Number(type === 'cash' ? cash : credits);
    try {
      await makeOffer({ id: c.id, type, amount }).unwrap();
    } catch (e) {
      window.alert(errorDetail(e, `Failed to make ${type} offer. Please try again.`));
    }
  };
  const del = async () => {
    if (!window.confirm('Are you sure you want to delete this clip? This action cannot be undone.')) return;
    try {
      await remove(c.id).unwrap();
    } catch (e) {
      window.alert(errorDetail(e, 'Failed to delete clip. Please try again.'));
    }
  };
  const pendingClip = c.status === 'pending';
  return (
    <article className="mk-card" aria-label={c.filename}>
      <div className="mk-thumb">
        {c.thumbnail_url ? <img src={c.thumbnail_url} alt="" loading="lazy" /> : null}
        <span className="badge mk-status">{statusLabel[c.status]}</span>
        <button className="mk-play" aria-label={`Play ${c.filename}`} onClick={onPlay}>
          ▶
        </button>
      </div>
      <div className="mk-body">
        <span className="mk-name">{c.filename}</span>
        <span className="muted">{formatDecimal(c.file_size_mb, 2)} MB</span>
        <span className="muted">By {c.user_email}</span>
        <span className="muted">Uploaded {day(c.uploaded_at)}</span>
        {c.offered_at && (
          <span>
            Offered {c.cash_offer !== null ? money(c.cash_offer) : `${c.credits_offer} credits`} on {day(c.offered_at)}
          </span>
        )}
        {pendingClip ? (
          <div className="mk-actions form">
            <label>
              Cash ($)
              <input type="number" min={0.01} step={0.01} value={cash} onChange={(e) => setCash(e.target.value)} />
            </label>
            <button className="btn primary" disabled={offering.isLoading} onClick={() => void offer('cash')}>
              {money(Number(cash) || 0)} Cash Offer
            </button>
            <label>
              Credits
              <input type="number" min={1} step={1} value={credits} onChange={(e) => setCredits(e.target.value)} />
            </label>
            <button className="btn primary" disabled={offering.isLoading} onClick={() => void offer('credits')}>
              {Number(credits) || 0} Credits Offer
            </button>
            <button className="btn" disabled={removing.isLoading} onClick={() => void del()}>
              Delete
            </button>
          </div>
        ) : (
          <div className="mk-actions">
            <button className="btn" disabled={removing.isLoading} onClick={() => void del()}>
              Remove
            </button>
          </div>
        )}
      </div>
    </article>
  );
}

/** Streams the clip with the admin's session (a plain video source cannot carry it). */
function Player({ clip, onClose }: { clip: FootageClip; onClose: () => void }) {
  const token = useAppSelector((s) => s.session.token);
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    const controller = new AbortController();
    fetch(`/api/v1/admin/footage-marketplace/${clip.id}/stream`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: controller.signal,
    })
      .then(async (r) => {
        if (!r.ok) throw new Error(String(r.status));
        url = URL.createObjectURL(await r.blob());
        setSrc(url);
      })
      .catch((e: unknown) => {
        if ((e as Error).name === 'AbortError') return;
        window.alert('Unable to play video. The file may still be processing.');
        onClose();
      });
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [clip.id, token, onClose]);
  return (
    <Modal title={clip.filename} onClose={onClose}>
      <div className="mk-player">
        {src ? (
          <video
            src={src}
            controls
            playsInline
            autoPlay
            data-testid="mk-video"
            onError={() => window.alert('Unable to play video. The file may still be processing.')}
            aria-label={`Video ${clip.filename}`}
          />
        ) : (
          <div className="spinner" role="status" aria-label="Loading video" />
        )}
      </div>
    </Modal>
  );
}

function Payouts() {
  const q = usePayoutsQuery();
  const [markPaid, marking] = useMarkPayoutPaidMutation();
  return (
    <section className="step" aria-labelledby="payouts">
      <h2 id="payouts">Payouts</h2>
      {q.isLoading ? (
        <div className="spinner" role="status" aria-label="Loading payouts" />
      ) : q.isError || !q.data ? (
        <p className="error">Failed to load payouts. Please try again.</p>
      ) : q.data.payouts.length === 0 ? (
        <p className="muted">No payouts yet. Accepted cash offers appear here.</p>
      ) : (
        <div className="mk-scroll">
          {/* Table markup like PricingPage's history by design: each page's own columns. */}
          <table className="mk-table">
            <thead>
              <tr>
                <th>User</th>
                <th>Amount</th>
                <th>Clip</th>
                <th>Date</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {q.data.payouts.map((p) => (
                <tr key={p.id}>
                  <td>{p.user_email}</td>
                  <td>{money(p.amount)}</td>
                  <td>{p.filename}</td>
                  <td>{day(p.created_at)}</td>
                  <td>
                    {p.state === 'paid' ? (
                      `Paid ${day(p.paid_at)}`
                    ) : (
                      <button
                        className="btn"
                        disabled={marking.isLoading}
                        onClick={() =>
                          void markPaid(p.id)
                            .unwrap()
                            .catch((e: unknown) => window.alert(errorDetail(e, 'Failed to mark the payout paid. Please try again.')))
                        }
                      >
                        Mark paid
                      </button>
                    )}
                  </td>
                </tr>
              ))}
              {/* Ends like PricingPage's history table only in markup: each page's own table. */}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

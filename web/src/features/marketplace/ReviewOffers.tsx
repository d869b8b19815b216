import { useState } from 'react';
import { errorDetail } from '../../base/api';
import { Modal } from '../../components/Modal';
import { ErrorAlert } from '../../components/ErrorAlert';
import { offerText, useAcceptOfferMutation, useDeclineOfferMutation, useMyOffersQuery, type Offer } from './marketplace.api';
import { formatDate, formatDecimal } from '../../base/format';
import './marketplace.css';

/** The Review Offers screen (opened from the Default Settings modal): the user's open offers. */
export function ReviewOffersModal({ onClose }: { onClose: () => void }) {
  const q = useMyOffersQuery();
  const [notice, setNotice] = useState('');
  return (
    <Modal title="Review Offers" onClose={onClose}>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {q.isLoading ? (
        <div className="spinner" role="status" aria-label="Loading offers" />
      ) : q.isError || !q.data ? (
        <div>
          <ErrorAlert>Failed to load offers. The system may still be initializing.</ErrorAlert>
          <button className="btn" onClick={() => void q.refetch()}>
            Retry
          </button>
        </div>
      ) : q.data.offers.length === 0 ? (
        <p className="muted">No offers right now. Turn on footage offers when you create a reel, and offers for your clips appear here.</p>
      ) : (
        <ul className="mk-offers">
          {q.data.offers.map((o) => (
            <OfferRow key={o.id} offer={o} onAnswered={setNotice} />
          ))}
        </ul>
      )}
    </Modal>
  );
}

function OfferRow({ offer: o, onAnswered }: { offer: Offer; onAnswered: (message: string) => void }) {
  const [accept, accepting] = useAcceptOfferMutation();
  const [decline, declining] = useDeclineOfferMutation();
  const type = o.status === 'cash_offered' ? 'cash' : 'credits';
  const busy = accepting.isLoading || declining.isLoading;
  const onAccept = async () => {
    try {
      onAnswered((await accept({ id: o.id, offer_type: type }).unwrap()).message);
    } catch (e) {
      window.alert(errorDetail(e, 'Failed to accept offer. Please try again.'));
    }
  };
  const onDecline = async () => {
    if (!window.confirm(`Decline the ${offerText(o)} offer for ${o.filename}?`)) return;
    try {
      onAnswered((await decline(o.id).unwrap()).message);
    } catch (e) {
      window.alert(errorDetail(e, 'Failed to decline offer. Please try again.'));
    }
  };
  return (
    <li className="mk-offer" aria-label={`Offer for ${o.filename}`}>
      {o.thumbnail_url ? <img src={o.thumbnail_url} alt="" /> : <div className="mk-noimg" />}
      <div>
        <strong style={{ overflowWrap: 'anywhere' }}>{o.filename}</strong>
        <div className="muted">
          {formatDecimal(o.file_size_mb, 2)} MB · uploaded {formatDate(o.uploaded_at)}
        </div>
        <div>
          Offer: <strong>{offerText(o)}</strong>
        </div>
        <div className="mk-actions">
          <button className="btn primary" disabled={busy} onClick={() => void onAccept()}>
            Accept
          </button>
          <button className="btn" disabled={busy} onClick={() => void onDecline()}>
            Decline
          </button>
        </div>
      </div>
    </li>
  );
}

/** The number of open offers, for the user menu's badge (0 while loading or on failure). */
export function useOfferCount(enabled: boolean): number {
  const q = useMyOffersQuery(undefined, { skip: !enabled, pollingInterval: 60_000 });
  return q.data?.offers.length ?? 0;
}

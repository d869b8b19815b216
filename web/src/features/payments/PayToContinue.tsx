import { useState } from 'react';
import type { User } from '../../api/types';
import { Modal } from '../../components/Modal';
import { CycleToggle, PackCards, PlanCards, type Cycle } from './CatalogueCards';
import { LazyPaymentDialog } from './LazyPaymentDialog';
import { packItem, useCatalogueQuery, type PaymentItem } from './payments.api';
import { formatCount, formatPlural } from '../../base/format';
import './payments.css';

/**
 * Home, before any upload: the reel costs more than the user can pay. Offers 'Buy credits' (the
 * smallest pack that covers it) and 'See plans', paying in place so the page keeps its files and
 * settings; when the payment lands the user refreshes and Generate works.
 */
export function PayToContinue({ user, credits }: { user: User; credits: number }) {
  const catalogue = useCatalogueQuery();
  const [paying, setPaying] = useState<PaymentItem | null>(null);
  const [plans, setPlans] = useState(false);
  const [cycle, setCycle] = useState<Cycle>('monthly');
  const short = Math.max(credits - user.credits, 0);
  const pack = catalogue.data?.packs.find((p) => p.credits >= short) ?? catalogue.data?.packs.at(-1);
  const choose = (item: PaymentItem) => {
    setPlans(false);
    setPaying(item);
  };
  return (
    <div className="pay-gate notice" role="alert">
      <p>
        {user.entitlements.messages.insufficient}. This reel costs {formatPlural(credits, 'credit')}; you have {formatCount(user.credits)}
        {user.entitlements.subscribed ? '' : ' and your free video for today is used'}.
      </p>
      <div className="row">
        <button className="btn primary" disabled={!pack} onClick={() => pack && choose(packItem(pack))}>
          Buy credits
        </button>
        {/* Buttons look alike across the app by design (one .btn each, its own action). */}
        <button className="btn" onClick={() => setPlans(true)}>
          See plans
        </button>
      </div>
      {plans && (
        <Modal title="Plans and credit packs" onClose={() => setPlans(false)}>
          <CycleToggle name="gate-cycle" cycle={cycle} onChange={setCycle} />
          <div className="gate-scroll">
            <PlanCards cycle={cycle} user={user} onChoose={choose} />
            <h3>Credit packs</h3>
            <PackCards onChoose={choose} withCart={false} />
          </div>
        </Modal>
      )}
      {paying && <LazyPaymentDialog items={[paying]} onClose={() => setPaying(null)} />}
    </div>
  );
}

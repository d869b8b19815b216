import { useState, type ReactNode } from 'react';
import { useAppSelector } from '../../base/store';
import { Modal } from '../../components/Modal';
import { ReviewOffersModal } from '../marketplace';
import { FACTORY_DEFAULTS, loadDefaults, saveDefaults, type DefaultSettings } from './defaults';

const toggles: Array<[keyof DefaultSettings, string]> = [
  ['defaultEnableBeatMapping', 'Beat mapping'],
  ['defaultEnableIntelligence', 'Intelligence (best moments)'],
  ['defaultEnableFades', 'Fades'],
  ['defaultEnableLetterbox', 'Letterbox'],
  ['defaultGetFootageOffers', 'Get footage offers'],
  ['defaultUseLibraryVideo', 'Use library video'],
  ['defaultUseLibraryAudio', 'Use library audio'],
];

/** The Default Settings modal: the settings a new reel starts from, kept in this browser. */
/** `account`: the signed-in user's account section (the user menu passes auth's AccountSettings). */
export function DefaultSettingsModal({ onClose, account }: { onClose: () => void; account?: ReactNode }) {
  const [s, setS] = useState<DefaultSettings>(loadDefaults);
  const [saved, setSaved] = useState(false);
  const [reviewing, setReviewing] = useState(false);
  const signedIn = useAppSelector((st) => Boolean(st.session.token));
  if (reviewing) return <ReviewOffersModal onClose={() => setReviewing(false)} />;
  const save = () => {
    saveDefaults(s);
    setSaved(true);
  };
  return (
    <Modal title="Default Settings" onClose={onClose}>
      <div className="form">
        <label>
          Pacing
          <select
            value={s.defaultPacing}
            onChange={(e) => setS({ ...s, defaultPacing: e.target.value as DefaultSettings['defaultPacing'] })}
          >
            <option value="relaxed">Relaxed</option>
            <option value="standard">Standard</option>
            <option value="high-energy">High energy</option>
          </select>
        </label>
        {toggles.map(([k, label]) => (
          <label key={k} className="check">
            <input type="checkbox" checked={Boolean(s[k])} onChange={(e) => setS({ ...s, [k]: e.target.checked })} /> {label}
          </label>
        ))}
        {saved && (
          <p className="notice success" role="status">
            Saved. New reels start from these settings.
          </p>
        )}
        <div className="row">
          <button className="btn" onClick={() => setS(FACTORY_DEFAULTS)}>
            Reset
          </button>
          <button className="btn primary" onClick={save}>
            Save
          </button>
        </div>
        {signedIn && (
          <button className="btn wide" onClick={() => setReviewing(true)}>
            Review Offers
          </button>
        )}
      </div>
      {signedIn && account}
    </Modal>
  );
}

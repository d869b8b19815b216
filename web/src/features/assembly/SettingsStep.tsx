import type { Pacing, TitleFont, TitlePosition } from '../../api/types';
import type { JobForm } from './useJobForm';

/** Step 2: pacing, beat mapping, Intelligence, title, fades, letterbox, offers, output filename. */
export function SettingsStep({ form, hasMusic }: { form: JobForm; hasMusic: boolean }) {
  const { settings: s, update, updateTitle } = form;
  const t = s.title_config;
  return (
    <section className="step" aria-labelledby="step2">
      <h2 id="step2">
        <span className="step-no">2</span> Configure Settings
      </h2>
      <div className="settings form">
        <label>
          Pacing
          <select value={s.pacing_preset} onChange={(e) => update({ pacing_preset: e.target.value as Pacing })}>
            <option value="relaxed">Relaxed</option>
            <option value="standard">Standard</option>
            <option value="high-energy">High energy</option>
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={s.enable_beat_mapping} onChange={(e) => update({ enable_beat_mapping: e.target.checked })} /> Beat
          mapping {!hasMusic && <span className="muted">(needs music)</span>}
        </label>
        <label className="check">
          <input type="checkbox" checked={s.enable_intelligence} onChange={(e) => update({ enable_intelligence: e.target.checked })} />{' '}
          Intelligence (best moments)
        </label>
        <label className="check">
          <input type="checkbox" checked={t.enabled} onChange={(e) => updateTitle({ enabled: e.target.checked })} /> Title
        </label>
        {t.enabled && (
          <>
            <label>
              Title text
              <input value={t.text} maxLength={200} onChange={(e) => updateTitle({ text: e.target.value })} />
            </label>
            <label>
              Font
              <select value={t.font} onChange={(e) => updateTitle({ font: e.target.value as TitleFont })}>
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
                value={t.font_size}
                onChange={(e) => updateTitle({ font_size: Number(e.target.value) || t.font_size })}
              />
            </label>
            <label>
              Position
              <select value={t.position} onChange={(e) => updateTitle({ position: e.target.value as TitlePosition })}>
                <option value="top">Top</option>
                <option value="center">Center</option>
                <option value="bottom">Bottom</option>
              </select>
            </label>
          </>
        )}
        <label className="check">
          <input type="checkbox" checked={s.enable_fades} onChange={(e) => update({ enable_fades: e.target.checked })} /> Fades
        </label>
        <label className="check">
          <input type="checkbox" checked={s.enable_letterbox} onChange={(e) => update({ enable_letterbox: e.target.checked })} /> Letterbox
        </label>
        <label className="check">
          <input type="checkbox" checked={s.get_footage_offers} onChange={(e) => update({ get_footage_offers: e.target.checked })} /> Get
          footage offers <span className="muted">(we may offer to buy the clips you upload for this reel)</span>
        </label>
        <label>
          Output filename
          <input value={s.output_filename} maxLength={200} onChange={(e) => update({ output_filename: e.target.value })} />
        </label>
      </div>
    </section>
  );
}

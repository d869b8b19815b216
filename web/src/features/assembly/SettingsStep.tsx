import { useCallback } from 'react';
import { jobRequestLimits, type Pacing, type TitleFont, type TitlePosition } from '../../api/types';
import { AspectPicker } from './AspectPicker';
import { NumberField } from './NumberField';
import { ReelLengthPicker } from './ReelLengthPicker';
import type { JobForm } from './useJobForm';

const L = jobRequestLimits;

/** Step 2: shape and framing, pacing, beat mapping, Intelligence, title, fades, offers, output filename. */
export function SettingsStep({ form, hasMusic }: { form: JobForm; hasMusic: boolean }) {
  const { settings: s, update, updateTitle } = form;
  const t = s.title_config;
  const { setSettingsProblem } = form;
  const problemOf = useCallback((field: string) => (p: string) => setSettingsProblem(field, p), [setSettingsProblem]);
  const titleTooLong =
    t.enabled && t.text.length > L.title_config.text.max ? `The title must be at most ${L.title_config.text.max} characters` : '';
  return (
    <section className="step" aria-labelledby="step2">
      <h2 id="step2">
        <span className="step-no">2</span> Configure Settings
      </h2>
      <AspectPicker
        value={s.aspect}
        chosen={s.framing}
        letterbox={s.enable_letterbox !== false}
        onChange={(aspect) => update({ aspect })}
        onFraming={(framing) => update({ framing })}
      />
      <ReelLengthPicker
        value={s.target_duration_sec}
        hasMusic={hasMusic}
        songSeconds={form.music?.durationSec}
        onChange={(target_duration_sec) => update({ target_duration_sec, music_start_sec: null })}
        onProblem={problemOf('target_duration_sec')}
      />
      <div className="settings form">
        <fieldset className="settings-group">
          <legend>Editing</legend>
          <label>
            Pacing
            <select value={s.pacing_preset} onChange={(e) => update({ pacing_preset: e.target.value as Pacing })}>
              <option value="relaxed">Relaxed</option>
              <option value="standard">Standard</option>
              <option value="high-energy">High energy</option>
            </select>
          </label>
          <div className="checks">
            <label className="check">
              <input type="checkbox" checked={s.enable_beat_mapping} onChange={(e) => update({ enable_beat_mapping: e.target.checked })} />{' '}
              <span>Beat mapping {!hasMusic && <span className="muted">(needs music)</span>}</span>
            </label>
            <label className="check">
              <input type="checkbox" checked={s.enable_intelligence} onChange={(e) => update({ enable_intelligence: e.target.checked })} />{' '}
              Intelligence (best moments)
            </label>
          </div>
        </fieldset>
        <fieldset className="settings-group">
          <legend>Title</legend>
          <div className="checks">
            <label className="check">
              <input type="checkbox" checked={t.enabled} onChange={(e) => updateTitle({ enabled: e.target.checked })} /> Show a title
            </label>
          </div>
          {t.enabled && (
            <>
              <label>
                Title text
                <input
                  value={t.text}
                  onChange={(e) => {
                    updateTitle({ text: e.target.value });
                    setSettingsProblem(
                      'title',
                      e.target.value.length > L.title_config.text.max
                        ? `The title must be at most ${L.title_config.text.max} characters`
                        : '',
                    );
                  }}
                  aria-invalid={titleTooLong ? true : undefined}
                />
                <span className={titleTooLong ? 'field-error' : 'muted small'}>
                  {titleTooLong || `${t.text.length}/${L.title_config.text.max}`}
                </span>
              </label>
              <label>
                Font
                <select value={t.font} onChange={(e) => updateTitle({ font: e.target.value as TitleFont })}>
                  <option value="Roboto-Bold.ttf">Roboto Bold</option>
                  <option value="Arial-Bold.ttf">Arial Bold</option>
                  <option value="Helvetica-Bold.ttf">Helvetica Bold</option>
                </select>
              </label>
              <NumberField
                label="Font size"
                integer
                value={t.font_size}
                limits={L.title_config.font_size}
                onValue={(font_size) => updateTitle({ font_size })}
                onProblem={problemOf('font_size')}
              />
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
        </fieldset>
        <fieldset className="settings-group">
          <legend>Fades</legend>
          <div className="checks">
            <label className="check">
              <input type="checkbox" checked={s.enable_fades} onChange={(e) => update({ enable_fades: e.target.checked })} /> Fades
            </label>
          </div>
          {s.enable_fades && (
            <>
              <NumberField
                label="Fade-in (seconds)"
                value={s.fade_in_duration_sec}
                limits={L.fade_in_duration_sec}
                onValue={(fade_in_duration_sec) => update({ fade_in_duration_sec })}
                onProblem={problemOf('fade_in')}
              />
              {/* Same field as the fade-in above by design: one NumberField per setting, each with its own limits. */}
              <NumberField
                label="Fade-out (seconds)"
                value={s.fade_out_duration_sec}
                limits={L.fade_out_duration_sec}
                onValue={(fade_out_duration_sec) => update({ fade_out_duration_sec })}
                onProblem={problemOf('fade_out')}
              />
            </>
          )}
        </fieldset>
        <fieldset className="settings-group">
          <legend>Output</legend>
          <label>
            Output filename
            <input
              value={s.output_filename}
              maxLength={L.output_filename.max}
              onChange={(e) => update({ output_filename: e.target.value })}
            />
          </label>
          <div className="checks">
            <label className="check">
              <input type="checkbox" checked={s.get_footage_offers} onChange={(e) => update({ get_footage_offers: e.target.checked })} />{' '}
              <span>
                Get footage offers <span className="muted">(we may offer to buy the clips you upload for this reel)</span>
              </span>
            </label>
          </div>
        </fieldset>
      </div>
    </section>
  );
}

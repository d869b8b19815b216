import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { EditPlan, JobRequest, PlanMusic, TempoCorrectionKind, TempoCorrectionRequest } from '../../api/types';
import { errorDetail } from '../../base/api';
import { Waveform } from '../../components/Waveform';
import { ErrorAlert } from '../../components/ErrorAlert';
import { clock, framingLabel, useCorrectTempoMutation } from '../assembly';
import { CutHandles } from './CutHandles';
import { InstantPreview } from './InstantPreview';
import { SongWindow } from './SongWindow';
import { usePlanMutation } from './studio.api';
import { TempoPanel } from './TempoPanel';
import { moveCut, musicOnReel, stepCut, timelineMinWidth, widths, withoutStaleFraming } from './timeline';
import { correctionNote, startAfterCorrection, usesWindow } from './song-window';
import './studio.css';

/**
 * Home's 'Preview edit' step (issue 20), between Configure and Generate: the plan the engine would
 * render for `request`, shown as a timeline the user can lock, re-roll and nudge, and played in
 * the browser without rendering. Generate sends `plan` with the request, so the render follows it.
 * A reel cut from a longer song shows the song and its window (SongWindow.tsx): moving the window
 * re-plans from the chosen bar line (`music_start_sec`), and the plan carries it to Generate.
 */
export interface PlanStudioProps {
  /** The job request as Generate would send it (every file uploaded); null while it is not ready. */
  request: JobRequest | null;
  /** The plan shown (possibly edited), or null when there is none (or the request changed since). */
  plan: EditPlan | null;
  onPlanChange: (plan: EditPlan | null) => void;
  /** Playable sources of the clips, by media_files index (object URLs of local files, or library links). */
  clipSources: string[];
  /** The clips' names, by media_files index. */
  clipNames?: string[];
  /** Playable source of the music, if any. */
  musicSource?: string;
}

const RETRY_PENDING_MS = 2000;
/** A busy server (503, 'please retry') is asked again this many times before the message shows. */
const RETRY_BUSY = 3;

export function PlanStudio({ request, plan, onPlanChange, clipSources, clipNames = [], musicSource }: PlanStudioProps) {
  const [fetchPlan, state] = usePlanMutation();
  const [music, setMusic] = useState<PlanMusic | null>(null);
  const [credits, setCredits] = useState<number | undefined>();
  const [problem, setProblem] = useState('');
  /** What the last tempo correction did to the reel's length and window, in words. */
  const [note, setNote] = useState('');
  const [pending, setPending] = useState(false);
  const [selected, setSelected] = useState(0);
  const [locked, setLocked] = useState<Set<number>>(new Set());
  const [seed, setSeed] = useState(1);
  const [playhead, setPlayhead] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [correctTempo, correcting] = useCorrectTempoMutation();
  /** The playhead as of the last frame (tap times are read from it), and a request to start playing. */
  const now = useRef(0);
  const [playSignal, setPlaySignal] = useState(0);
  const onPlayhead = useCallback((t: number) => {
    now.current = t;
    setPlayhead(t);
  }, []);
  const requestKey = useMemo(() => (request ? JSON.stringify(request) : ''), [request]);
  const planFor = useRef('');
  const retry = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // A plan made for another request (files, order or settings changed) is stale.
  useEffect(() => {
    if (plan && planFor.current !== requestKey) onPlanChange(null);
  }, [plan, requestKey, onPlanChange]);
  useEffect(() => () => clearTimeout(retry.current), []);

  /** The song's bar line the user moved the window to (null: the engine's choice), and the latest ask (older answers are dropped). */
  const musicStart = useRef<number | null>(null);
  const asked = useRef(0);
  const busyTries = useRef(0);
  /** The window's new start while its plan is being made. */
  const [windowPick, setWindowPick] = useState<number | null>(null);

  const ask = useCallback(
    async (extra: { plan?: EditPlan; reroll?: number[]; locked?: number[]; seed?: number } = {}): Promise<EditPlan | null> => {
      if (!request) return null;
      setProblem('');
      setNote('');
      clearTimeout(retry.current);
      const n = ++asked.current;
      const start = musicStart.current !== null ? { music_start_sec: musicStart.current } : {};
      try {
        const r = await fetchPlan({ reroll: [], locked: [], seed: 0, ...request, ...start, ...extra }).unwrap();
        if (n !== asked.current) return null;
        planFor.current = requestKey;
        busyTries.current = 0;
        setWindowPick(null);
        setPending(false);
        setMusic(r.music);
        setCredits(r.estimate.credits);
        onPlanChange(r.plan);
        return r.plan;
      } catch (e) {
        if (n !== asked.current) return null;
        const status = (e as { status?: number }).status;
        // Analysis of an upload still running (409), or a busy server (503, a few times): wait and ask again.
        if (status === 409 || (status === 503 && busyTries.current < RETRY_BUSY)) {
          if (status === 503) busyTries.current++;
          setPending(true);
          retry.current = setTimeout(() => void ask(extra), RETRY_PENDING_MS);
          return null;
        }
        setPending(false);
        busyTries.current = 0;
        setWindowPick(null);
        setProblem(errorDetail(e, 'Could not make the preview'));
        return null;
      }
    },
    [request, requestKey, fetchPlan, onPlanChange],
  );

  const open = () => {
    musicStart.current = null;
    setWindowPick(null);
    setLocked(new Set());
    setSelected(0);
    setPlayhead(0);
    void ask();
  };
  const reroll = (i: number) => {
    if (!plan || locked.has(i)) return;
    const next = seed + 1;
    setSeed(next);
    void ask({ plan, reroll: [i], locked: [...locked], seed: next });
  };
  const toggleLock = (i: number) =>
    setLocked((l) => {
      const n = new Set(l);
      if (!n.delete(i)) n.add(i);
      return n;
    });
  /**
   * A tempo correction of the music, kept for next time; the plan is made again on the corrected
   * beats. The bar lines move with the beats: a window the reel plays stays where it was, on the
   * nearest bar line of the corrected grid, and what changed (the reel's length, the window) is
   * said in words.
   */
  const correct = async (action: TempoCorrectionKind | 'reset', taps?: number[]) => {
    if (!request?.music_file) return;
    setProblem('');
    setNote('');
    const before = plan;
    const target = request.target_duration_sec;
    const windowShown = Boolean(before && music && usesWindow(target, before, music.duration_sec));
    try {
      const key = request.music_file;
      const body: TempoCorrectionRequest = action === 'tap' ? { key, action, taps: taps ?? [] } : { key, action };
      const info = await correctTempo(body).unwrap();
      if (before && windowShown && target && info.music) {
        const was = musicStart.current ?? before.music_start;
        musicStart.current = startAfterCorrection(info.music.downbeats, info.duration_sec || music!.duration_sec, target, was);
      } else musicStart.current = null;
      setLocked(new Set());
      const after = await ask();
      if (before && after) setNote(correctionNote(before, after, target, windowShown));
    } catch (e) {
      setProblem(errorDetail(e, 'Could not correct the tempo'));
    }
  };
  // The music on the reel's clock: a reel cut from the song shows (and snaps to) its window only.
  const onReel = plan && music ? musicOnReel(music, plan) : undefined;
  const beats = onReel?.beats ?? [];
  const nudge = (i: number, dir: -1 | 1) => {
    if (!plan) return;
    const to = stepCut(plan, i, beats, dir);
    if (to === undefined) return setProblem(dir < 0 ? 'No earlier beat to move this cut to.' : 'No later beat to move this cut to.');
    apply(moveCut(plan, i, to));
  };
  /** The window moved to another bar line: a new plan from there (locks and re-rolls were for the old music). */
  const moveWindow = (start: number) => {
    musicStart.current = start;
    setWindowPick(start);
    setLocked(new Set());
    setPlayhead(0);
    void ask();
  };
  /**
   * A moved cut: shown at once; a segment whose moment now starts earlier or ends later than its
   * crop path is framed anew by the server (the path kept meanwhile), so the preview keeps showing
   * what the render will follow.
   */
  const apply = (r: EditPlan | string) => {
    if (typeof r === 'string') return setProblem(r);
    setProblem('');
    onPlanChange(r);
    const reframe = withoutStaleFraming(r);
    if (reframe) void ask({ plan: reframe, locked: [...locked] });
  };

  if (!request)
    return <p className="muted">Add your clips (and music) and wait for the uploads: then preview the edit before spending credits.</p>;

  if (!plan)
    return (
      <div className="studio-empty">
        <button className="btn" onClick={open} disabled={state.isLoading || pending}>
          {state.isLoading || pending ? 'Planning…' : 'Preview edit'}
        </button>
        <span className="muted small"> See every cut, on the beat, before the render. Free.</span>
        {pending && <p className="notice">Your files are still being analysed… the preview opens as soon as they are ready.</p>}
        {problem && <ErrorAlert>{problem}</ErrorAlert>}
      </div>
    );

  const w = widths(plan);
  const seg = plan.segments[Math.min(selected, plan.segments.length - 1)]!;
  const sel = Math.min(selected, plan.segments.length - 1);
  const onKey = (e: KeyboardEvent, i: number) => {
    const k = e.key;
    if (k === 'ArrowRight' || k === 'ArrowLeft') {
      e.preventDefault();
      const n = Math.max(0, Math.min(plan.segments.length - 1, i + (k === 'ArrowRight' ? 1 : -1)));
      setSelected(n);
      document.getElementById(`seg-${n}`)?.focus();
    } else if (k === 'l' || k === 'L') toggleLock(i);
    else if (k === 'r' || k === 'R') reroll(i);
    else if (k === '[') nudge(i, -1);
    else if (k === ']') nudge(i, 1);
  };

  return (
    <div className="studio" data-testid="studio">
      <div className="studio-head">
        <span>
          {plan.segments.length} segments · {clock(plan.total_sec)} · {plan.aspect}
          {request.framing ? ` · ${framingLabel(request.framing)}` : ''}
          {plan.beat_aligned && music ? ` · cut on the beat at ${Math.round(music.tempo_bpm)} BPM` : ''}
        </span>
        {credits !== undefined && <span data-testid="plan-estimate">Generating this edit: {credits} credits</span>}
      </div>
      {music && request.music_file && (
        <TempoPanel
          music={music}
          busy={correcting.isLoading || state.isLoading}
          onCorrect={(a, t) => void correct(a, t)}
          now={() => now.current}
          startPlaying={() => setPlaySignal((n) => n + 1)}
        />
      )}
      {note && (
        <p className="notice" role="status" data-testid="correction-note">
          {note}
        </p>
      )}
      {music && usesWindow(request.target_duration_sec, plan, music.duration_sec) && (
        <SongWindow
          music={music}
          start={plan.music_start}
          lengthSec={plan.total_sec}
          targetSec={request.target_duration_sec!}
          picked={windowPick}
          onChoose={moveWindow}
        />
      )}
      <div className="timeline-scroll">
        <div className="timeline" style={{ minWidth: timelineMinWidth(w) }}>
          <div className="segments" role="listbox" aria-label="Segments of the edit" aria-orientation="horizontal">
            {plan.segments.map((s, i) => (
              <button
                key={`${i}-${s.clip}-${s.in}`}
                id={`seg-${i}`}
                role="option"
                aria-selected={i === sel}
                className={`segment${i === sel ? ' selected' : ''}${locked.has(i) ? ' locked' : ''}`}
                style={{ width: `${w[i]}%` }}
                data-testid="segment"
                data-start={s.start}
                data-end={s.end}
                aria-label={`Segment ${i + 1}: ${clock(s.start)} to ${clock(s.end)}, clip ${s.clip + 1}${locked.has(i) ? ', locked' : ''}`}
                onClick={() => setSelected(i)}
                onKeyDown={(e) => onKey(e, i)}
                tabIndex={i === sel ? 0 : -1}
              >
                {s.thumbnail_url && <img src={s.thumbnail_url} alt="" draggable={false} />}
                {locked.has(i) && (
                  <span className="lock" aria-hidden="true">
                    🔒
                  </span>
                )}
              </button>
            ))}
          </div>
          <CutHandles plan={plan} beats={beats} onMove={(i, t) => apply(moveCut(plan, i, t))} />
          {onReel && (
            <Waveform
              peaks={onReel.peaks}
              beats={onReel.beats}
              downbeats={onReel.downbeats}
              duration={onReel.duration_sec}
              className="studio-wave"
            />
          )}
          <div className="playhead" style={{ left: `${(playhead / plan.total_sec) * 100}%` }} aria-hidden="true" />
        </div>
      </div>
      <div className="segment-detail" aria-live="polite">
        <strong>Segment {sel + 1}</strong>{' '}
        <span data-testid="segment-detail">
          {clock(seg.start)}–{clock(seg.end)} on the reel · from {clipNames[seg.clip] ?? `clip ${seg.clip + 1}`} at {seg.in.toFixed(2)}–
          {seg.out.toFixed(2)} s{seg.hold > 0 ? ` (+${seg.hold.toFixed(2)} s held)` : ''}
          {seg.score !== null ? ` · score ${seg.score.toFixed(2)}` : ''}
          {seg.framing
            ? ` · ${seg.framing.camera === 'letterbox' ? 'letterbox' : `${seg.framing.mode === 'subject' ? 'subject' : 'centre'} crop, ${seg.framing.camera}`}${seg.framing.reason ? ` (${seg.framing.reason})` : ''}`
            : ''}
        </span>
        <div className="row wrap">
          <button className="btn" onClick={() => toggleLock(sel)} aria-pressed={locked.has(sel)}>
            {locked.has(sel) ? 'Unlock' : 'Lock'}
          </button>
          <button className="btn" onClick={() => reroll(sel)} disabled={locked.has(sel) || state.isLoading}>
            {state.isLoading ? 'Re-rolling…' : 'Re-roll'}
          </button>
          <button
            className="btn"
            onClick={() => nudge(sel, -1)}
            disabled={sel >= plan.segments.length - 1}
            title="Move the cut after this segment one beat earlier"
          >
            <span aria-hidden="true">◀ </span>
            Cut a beat earlier
          </button>
          <button
            className="btn"
            onClick={() => nudge(sel, 1)}
            disabled={sel >= plan.segments.length - 1}
            title="Move the cut after this segment one beat later"
          >
            Cut a beat later
            <span aria-hidden="true"> ▶</span>
          </button>
          <button className="btn link" onClick={open}>
            Start this preview over
          </button>
        </div>
        <p className="muted small keys-hint">
          Keys on a segment: ←/→ select, L lock, R re-roll, [ and ] move its end cut by a beat; drag a cut to snap it to a beat.
        </p>
      </div>
      {problem && <ErrorAlert>{problem}</ErrorAlert>}
      <InstantPreview
        plan={plan}
        framing={request.framing}
        clipSources={clipSources}
        musicSource={musicSource}
        playhead={playhead}
        playing={playing}
        onPlayhead={onPlayhead}
        onPlaying={setPlaying}
        playSignal={playSignal}
      />
    </div>
  );
}

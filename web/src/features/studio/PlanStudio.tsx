import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { EditPlan, JobRequest, PlanMusic, TempoCorrectionKind } from '../../api/types';
import { errorDetail } from '../../app/api';
import { Waveform } from '../../components/Waveform';
import { clock, useCorrectTempoMutation } from '../assembly';
import { usePlanMutation } from './studio.api';
import { cutCandidates, moveCut, musicOnReel, segmentAt, snap, sourceTime, stepCut, tapBpm, widths } from './timeline';
import './studio.css';

/**
 * Home's 'Preview edit' step (issue 20), between Configure and Generate: the plan the engine would
 * render for `request`, shown as a timeline the user can lock, re-roll and nudge, and played in
 * the browser without rendering. Generate sends `plan` with the request, so the render follows it.
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

export function PlanStudio({ request, plan, onPlanChange, clipSources, clipNames = [], musicSource }: PlanStudioProps) {
  const [fetchPlan, state] = usePlanMutation();
  const [music, setMusic] = useState<PlanMusic | null>(null);
  const [credits, setCredits] = useState<number | undefined>();
  const [problem, setProblem] = useState('');
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

  const ask = useCallback(
    async (extra: { plan?: EditPlan; reroll?: number[]; locked?: number[]; seed?: number } = {}) => {
      if (!request) return;
      setProblem('');
      clearTimeout(retry.current);
      try {
        const r = await fetchPlan({ reroll: [], locked: [], seed: 0, ...request, ...extra }).unwrap();
        planFor.current = requestKey;
        setPending(false);
        setMusic(r.music);
        setCredits(r.estimate.credits);
        onPlanChange(r.plan);
      } catch (e) {
        const status = (e as { status?: number }).status;
        // Analysis of an upload still running: say so and try again shortly.
        if (status === 409) {
          setPending(true);
          retry.current = setTimeout(() => void ask(extra), RETRY_PENDING_MS);
          return;
        }
        setPending(false);
        setProblem(errorDetail(e, 'Could not make the preview'));
      }
    },
    [request, requestKey, fetchPlan, onPlanChange],
  );

  const open = () => {
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
  /** A tempo correction of the music, kept for next time; the plan is made again on the corrected beats. */
  const correct = async (action: TempoCorrectionKind | 'reset', taps?: number[]) => {
    if (!request?.music_file) return;
    setProblem('');
    try {
      await correctTempo({ key: request.music_file, action, ...(taps ? { taps } : {}) }).unwrap();
      setLocked(new Set());
      await ask();
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
  const apply = (r: EditPlan | string) => {
    if (typeof r === 'string') return setProblem(r);
    setProblem('');
    onPlanChange(r);
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
        {problem && (
          <p className="error" role="alert">
            {problem}
          </p>
        )}
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
      <div className="timeline-scroll">
        <div className="timeline" style={{ minWidth: `${Math.max(100, plan.segments.length * 9)}%` }}>
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
            aria-label="Move the cut after this segment one beat earlier"
          >
            Cut ◀ beat
          </button>
          <button
            className="btn"
            onClick={() => nudge(sel, 1)}
            disabled={sel >= plan.segments.length - 1}
            aria-label="Move the cut after this segment one beat later"
          >
            Cut beat ▶
          </button>
          <button className="btn link" onClick={open}>
            Start this preview over
          </button>
        </div>
        <p className="muted small">
          Keys on a segment: ←/→ select, L lock, R re-roll, [ and ] move its end cut by a beat; drag a cut to snap it to a beat.
        </p>
      </div>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      <InstantPreview
        plan={plan}
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

/** The cuts between segments as drag handles: a dragged cut snaps to the nearest beat. */
function CutHandles({ plan, beats, onMove }: { plan: EditPlan; beats: number[]; onMove: (i: number, t: number) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ i: number; t: number } | null>(null);
  const timeAt = (e: PointerEvent) => {
    const r = ref.current!.getBoundingClientRect();
    return ((e.clientX - r.left) / r.width) * plan.total_sec;
  };
  return (
    <div className="cuts" ref={ref}>
      {plan.segments.slice(0, -1).map((s, i) => {
        const at = drag?.i === i ? drag.t : s.end;
        return (
          <span
            key={i}
            className={`cut${drag?.i === i ? ' dragging' : ''}`}
            style={{ left: `${(at / plan.total_sec) * 100}%` }}
            data-testid="cut"
            onPointerDown={(e) => {
              e.currentTarget.setPointerCapture(e.pointerId);
              setDrag({ i, t: s.end });
            }}
            onPointerMove={(e) => {
              if (drag?.i !== i) return;
              const t = snap(cutCandidates(plan, i, beats), timeAt(e));
              if (t !== undefined) setDrag({ i, t });
            }}
            onPointerUp={() => {
              if (drag?.i === i && drag.t !== s.end) onMove(i, drag.t);
              setDrag(null);
            }}
          />
        );
      })}
    </div>
  );
}

/**
 * The plan played in the browser without rendering: the source clip of each segment seeked to its
 * moment in a video element, in step with the music (its clock drives the playhead).
 */
function InstantPreview({
  plan,
  clipSources,
  musicSource,
  playhead,
  playing,
  onPlayhead,
  onPlaying,
  playSignal = 0,
}: {
  plan: EditPlan;
  clipSources: string[];
  musicSource?: string;
  playhead: number;
  playing: boolean;
  onPlayhead: (t: number) => void;
  onPlaying: (p: boolean) => void;
  /** Starts playing when it changes (tap tempo plays the music to tap along with). */
  playSignal?: number;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const current = useRef(-1);
  const started = useRef({ at: 0, from: 0 });

  const show = useCallback(
    (t: number, force = false) => {
      const v = video.current;
      if (!v) return;
      const i = segmentAt(plan, t);
      const s = plan.segments[i]!;
      const src = clipSources[s.clip] ?? '';
      if (force || i !== current.current) {
        current.current = i;
        if (src && !v.src.endsWith(src)) v.src = src;
        v.currentTime = sourceTime(s, t);
      }
    },
    [plan, clipSources],
  );

  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    const tick = () => {
      const a = audio.current;
      const t =
        a && musicSource ? a.currentTime - (plan.music_start ?? 0) : started.current.from + (performance.now() - started.current.at) / 1000;
      if (t >= plan.total_sec) {
        onPlaying(false);
        onPlayhead(0);
        return;
      }
      onPlayhead(t);
      show(t);
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [playing, plan, musicSource, onPlayhead, onPlaying, show]);

  useEffect(() => {
    if (!playing) show(playhead, true);
    // Seek when paused or when the plan changes; during play the clock drives it.
  }, [plan, playing]);

  const toggle = () => {
    const v = video.current;
    const a = audio.current;
    if (playing) {
      v?.pause();
      a?.pause();
      onPlaying(false);
      return;
    }
    started.current = { at: performance.now(), from: playhead };
    current.current = -1;
    if (a && musicSource) {
      a.currentTime = playhead + (plan.music_start ?? 0);
      void a.play().catch(() => undefined);
    }
    void v?.play().catch(() => undefined);
    onPlaying(true);
  };

  const toggleRef = useRef(toggle);
  toggleRef.current = toggle;
  const playingRef = useRef(playing);
  playingRef.current = playing;
  useEffect(() => {
    if (playSignal && !playingRef.current) toggleRef.current();
  }, [playSignal]);

  return (
    <div className={`instant-preview aspect-${plan.aspect.replace(':', 'x')}`}>
      <video ref={video} muted playsInline preload="auto" aria-label="Instant preview of the edit" />
      {musicSource && <audio ref={audio} src={musicSource} preload="auto" />}
      <div className="row">
        <button className="btn" onClick={toggle} data-testid="preview-play">
          {playing ? 'Pause' : 'Play preview'}
        </button>
        <span className="muted small">
          {clock(playhead)} / {clock(plan.total_sec)} · a quick look, not the render
        </span>
      </div>
    </div>
  );
}

const CORRECTED: Record<TempoCorrectionKind, string> = {
  halve: 'halved',
  double: 'doubled',
  shift: 'shifted half a beat',
  tap: 'tapped',
};

/**
 * The tempo and meter found, and the corrections people ask for: halve, double, shift by half a
 * beat, tap tempo (T or Space on the tap pad along with the music; Enter uses it, Escape cancels),
 * and reset. Each is kept with the track and re-plans at once.
 */
function TempoPanel({
  music,
  busy,
  onCorrect,
  now,
  startPlaying,
}: {
  music: PlanMusic;
  busy: boolean;
  onCorrect: (action: TempoCorrectionKind | 'reset', taps?: number[]) => void;
  now: () => number;
  startPlaying: () => void;
}) {
  const [taps, setTaps] = useState<number[] | null>(null);
  const [hint, setHint] = useState('');
  const pad = useRef<HTMLDivElement>(null);
  const tapButton = useRef<HTMLButtonElement>(null);
  const tapping = taps !== null;
  // The pad takes the focus while tapping; afterwards it goes back to Tap tempo (enabled again by then).
  const wasTapping = useRef(false);
  useEffect(() => {
    if (tapping) pad.current?.focus();
    else if (wasTapping.current) tapButton.current?.focus();
    wasTapping.current = tapping;
  }, [tapping]);
  const hasBeats = music.beats.length >= 2;
  const corrections = music.tempo_corrections;
  const found = Math.round(music.analysed_bpm);
  const shown = Math.round(music.tempo_bpm);
  const bpm = taps ? tapBpm(taps) : 0;

  const begin = () => {
    setHint('');
    setTaps([]);
    startPlaying();
  };
  const stop = () => {
    setTaps(null);
    setHint('');
  };
  const tap = () => setTaps((t) => (t ? [...t, Math.round(now() * 1000) / 1000].filter((x, i, a) => i === 0 || x > a[i - 1]!) : t));
  const use = () => {
    if (!taps || taps.length < 4) return setHint('Tap at least 4 times along with the music.');
    const t = taps;
    stop();
    onCorrect('tap', t);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 't' || e.key === 'T' || e.key === ' ') {
      e.preventDefault();
      if (!e.repeat) tap();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      use();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      stop();
    }
  };

  return (
    <div className="tempo-panel" role="group" aria-label="Tempo and meter">
      <span data-testid="plan-tempo">
        {shown > 0 ? `${shown} BPM` : 'No steady beat'} · {music.beats_per_bar}/4
        {corrections.length > 0
          ? ` · ${corrections.map((c) => CORRECTED[c]).join(', ')}${found > 0 && found !== shown ? ` (found ${found} BPM)` : ''}`
          : ''}
      </span>
      <div className="row wrap">
        <button className="btn" onClick={() => onCorrect('halve')} disabled={busy || tapping || !hasBeats}>
          Halve
        </button>
        <button className="btn" onClick={() => onCorrect('double')} disabled={busy || tapping || !hasBeats}>
          Double
        </button>
        <button className="btn" onClick={() => onCorrect('shift')} disabled={busy || tapping || !hasBeats}>
          Shift half a beat
        </button>
        <button className="btn" ref={tapButton} onClick={begin} disabled={busy || tapping} aria-expanded={tapping}>
          Tap tempo
        </button>
        {corrections.length > 0 && (
          <button className="btn link" onClick={() => onCorrect('reset')} disabled={busy || tapping}>
            Beats as found
          </button>
        )}
      </div>
      {tapping && (
        <div className="tap-row row wrap">
          <div
            ref={pad}
            className="tap-pad"
            role="button"
            tabIndex={0}
            data-testid="tap-pad"
            aria-label="Tap pad: press T or Space with each beat; Enter uses the tapped tempo, Escape cancels"
            onKeyDown={onKey}
            onPointerDown={(e) => {
              e.preventDefault();
              pad.current?.focus();
              tap();
            }}
          >
            Tap here (T or Space) with the beat
          </div>
          <span aria-live="polite" data-testid="tapped-bpm">
            {taps.length} taps{bpm > 0 ? ` · ${Math.round(bpm)} BPM` : ''}
          </span>
          <button className="btn" onClick={use} disabled={taps.length < 4}>
            Use tapped tempo
          </button>
          <button className="btn link" onClick={stop}>
            Cancel
          </button>
          {hint && <span className="error">{hint}</span>}
        </div>
      )}
    </div>
  );
}

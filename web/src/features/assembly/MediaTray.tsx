import { useState, type DragEvent } from 'react';
import { Waveform } from '../../components/Waveform';
import { useUploadInfoQuery } from './assembly.api';
import { MB } from './steps';
import { clock, resolutionLabel, type TrayItem } from './tray';
import type { JobForm } from './useJobForm';

/**
 * The chosen media as tiles: each clip with its thumbnail, duration and resolution once stored,
 * its upload progress until then, or the server's reason if it was refused; remove; drag (or the
 * arrow buttons) to reorder, which is the order the engine uses without Intelligence. The music
 * shows its duration, tempo and waveform once analysed.
 */
export function MediaTray({ form }: { form: JobForm }) {
  const { clips, music, busy } = form;
  const [dragFrom, setDragFrom] = useState<number | null>(null);
  if (!clips.length && !music) return null;
  const onDrop = (e: DragEvent, to: number) => {
    e.preventDefault();
    e.stopPropagation();
    if (dragFrom !== null) form.moveClip(dragFrom, to);
    setDragFrom(null);
  };
  return (
    <div className="tray" aria-label="Media tray" role="region">
      {clips.length > 0 && (
        <ol className="tray-clips" aria-label="Clips, in reel order">
          {clips.map((c, i) => (
            <li
              key={c.id}
              className={`tile ${c.state}${dragFrom === i ? ' dragging' : ''}`}
              data-testid="tray-clip"
              data-state={c.state}
              draggable={!busy}
              onDragStart={(e) => {
                setDragFrom(i);
                e.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => onDrop(e, i)}
              onDragEnd={() => setDragFrom(null)}
            >
              <div className="tile-thumb">
                {c.thumbnailUrl ? <img src={c.thumbnailUrl} alt="" /> : <span className="tile-placeholder" aria-hidden="true" />}
                <span className="tile-no">{i + 1}</span>
              </div>
              <div className="tile-body">
                <span className="tile-name" title={c.name}>
                  {c.name}
                </span>
                <TileStatus item={c} />
              </div>
              <div className="tile-actions">
                <button
                  className="icon-btn"
                  onClick={() => form.moveClip(i, i - 1)}
                  disabled={busy || i === 0}
                  aria-label={`Move ${c.name} earlier`}
                >
                  ←
                </button>
                <button
                  className="icon-btn"
                  onClick={() => form.moveClip(i, i + 1)}
                  disabled={busy || i === clips.length - 1}
                  aria-label={`Move ${c.name} later`}
                >
                  →
                </button>
                <button className="icon-btn" onClick={() => form.removeClip(c.id)} disabled={busy} aria-label={`Remove ${c.name}`}>
                  ✕
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      {music && <MusicTile item={music} onRemove={form.removeMusic} disabled={busy} />}
    </div>
  );
}

function TileStatus({ item }: { item: TrayItem }) {
  if (item.state === 'refused')
    return (
      <span className="tile-error" role="alert">
        Not uploaded: {item.error}
      </span>
    );
  if (item.state === 'waiting') return <span className="muted">Waiting to upload… {(item.size / MB).toFixed(1)} MB</span>;
  if (item.state === 'uploading')
    return (
      <span className="tile-progress">
        <span
          className="bar small"
          role="progressbar"
          aria-label={`Uploading ${item.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(item.progress * 100)}
        >
          <span style={{ width: `${Math.round(item.progress * 100)}%` }} />
        </span>
        <span className="muted">{Math.round(item.progress * 100)}%</span>
      </span>
    );
  const facts = [
    item.durationSec ? clock(item.durationSec) : '',
    resolutionLabel(item.width, item.height),
    item.source === 'library' ? 'Library' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <span className="muted" data-testid="tile-facts">
      {facts}
    </span>
  );
}

/** The music: duration, tempo and waveform (polled until its analysis is ready). */
function MusicTile({ item, onRemove, disabled }: { item: TrayItem; onRemove: () => void; disabled: boolean }) {
  const [poll, setPoll] = useState(1500);
  const info = useUploadInfoQuery(item.objectKey ?? '', { skip: item.state !== 'ready' || !item.objectKey, pollingInterval: poll });
  const analysis = info.data?.analysis;
  if (poll && analysis && analysis !== 'pending') setPoll(0);
  const m = info.data?.music;
  const bpm = m?.tempo_bpm || item.bpm;
  const duration = item.durationSec ?? info.data?.duration_sec ?? 0;
  return (
    <div className={`tile music ${item.state}`} data-testid="tray-music" data-state={item.state}>
      <div className="tile-body">
        <span className="tile-name" title={item.name}>
          ♪ {item.name}
        </span>
        {item.state === 'ready' ? (
          <span className="muted" data-testid="music-facts">
            {[
              duration ? clock(duration) : '',
              bpm ? `${Math.round(bpm)} BPM` : '',
              analysis === 'pending' || !info.data ? 'Analysing…' : '',
            ]
              .filter(Boolean)
              .join(' · ')}
            {analysis === 'failed' && ' · Beats could not be read; the reel is cut at a steady pace.'}
          </span>
        ) : (
          <TileStatus item={item} />
        )}
        {m && m.peaks.length > 0 && (
          <Waveform peaks={m.peaks} beats={m.beats} downbeats={m.downbeats} duration={duration} className="small" />
        )}
      </div>
      <div className="tile-actions">
        <button className="icon-btn" onClick={onRemove} disabled={disabled} aria-label={`Remove ${item.name}`}>
          ✕
        </button>
      </div>
    </div>
  );
}

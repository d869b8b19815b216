import { useRef, useState, type PointerEvent } from 'react';
import type { EditPlan } from '../../api/types';
import { cutCandidates, snap } from './timeline';

/** The cuts between segments as drag handles: a dragged cut snaps to the nearest beat. */
export function CutHandles({ plan, beats, onMove }: { plan: EditPlan; beats: number[]; onMove: (i: number, t: number) => void }) {
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

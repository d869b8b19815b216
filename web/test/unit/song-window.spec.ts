import {
  PAGE_BARS,
  barNumber,
  correctionNote,
  dragStart,
  keyStep,
  minSec,
  nearestStart,
  sectionName,
  startAfterCorrection,
  usesWindow,
  windowStarts,
  windowText,
} from '../../src/features/studio/song-window';

// A 120 BPM song in 4/4: a bar every 2 s from 0.5 s, 60 bars, 121 s long.
const bars = Array.from({ length: 60 }, (_, i) => 0.5 + 2 * i);
const duration = 121;

describe('windowStarts', () => {
  it('keeps every bar line from which the whole bars nearest the target fit in the song', () => {
    const s = windowStarts(bars, duration, 30);
    // 15 bars (30 s) from bar k end at bar k+15, which must be a bar line of the song (the last is bars[59]).
    expect(s[0]).toBe(0.5);
    expect(s[s.length - 1]).toBe(bars[59 - 15]);
    expect(s).toHaveLength(45);
  });

  it('rounds the target to the nearest whole bars (within half a bar)', () => {
    // 31 s is 15.5 bars: 15 or 16 bars are both within half a bar, so the last start is still 15 bars from the end.
    expect(windowStarts(bars, duration, 31).at(-1)).toBe(bars[44]);
    // 33 s is 16.5 bars: the nearest is 16 or 17 bars.
    expect(windowStarts(bars, duration, 33).at(-1)).toBe(bars[43]);
  });

  it('has none when the target is longer than the song', () => {
    expect(windowStarts(bars, duration, 200)).toEqual([]);
    expect(windowStarts([], duration, 30)).toEqual([]);
  });

  it('follows a bar length that changes (tempo drift) like the engine', () => {
    const drift = [0, 2, 4, 6, 8.5, 11, 13.5, 16];
    // 6 s: from 0 three bars (6 s); from 8.5 the nearest is 13.5 - 8.5 = 5 s or 16 - 8.5 = 7.5 s (over half a bar off? 2.5/2: yes, 1.25 < 1 fails).
    const s = windowStarts(drift, 16, 6);
    expect(s).toContain(0);
    expect(s).toContain(2);
    expect(s).not.toContain(16);
  });
});

describe('nearestStart and dragStart', () => {
  const starts = windowStarts(bars, duration, 30);
  it('snaps to the nearest bar line', () => {
    expect(starts[nearestStart(starts, 0)]).toBe(0.5);
    expect(starts[nearestStart(starts, 41.4)]).toBe(40.5);
    expect(starts[nearestStart(starts, 41.6)]).toBe(42.5);
    expect(starts[nearestStart(starts, 500)]).toBe(starts.at(-1));
    expect(nearestStart([], 3)).toBe(-1);
  });

  it('keeps the place the window was grabbed under the pointer', () => {
    // Grabbed 10 s into the window, the pointer at 60.2 s: the window starts near 50.2, on 50.5.
    expect(dragStart(starts, 60.2, 10)).toBe(50.5);
    // Dragged past the start of the song: the first start.
    expect(dragStart(starts, 3, 10)).toBe(0.5);
    expect(dragStart([], 3, 10)).toBeUndefined();
  });
});

describe('keyStep', () => {
  it('moves one bar with the arrows, PAGE_BARS with PageUp/PageDown, to the ends with Home/End', () => {
    expect(PAGE_BARS).toBe(4);
    expect(keyStep('ArrowRight', 5, 45)).toBe(6);
    expect(keyStep('ArrowUp', 5, 45)).toBe(6);
    expect(keyStep('ArrowLeft', 5, 45)).toBe(4);
    expect(keyStep('ArrowDown', 5, 45)).toBe(4);
    expect(keyStep('PageUp', 5, 45)).toBe(9);
    expect(keyStep('PageDown', 5, 45)).toBe(1);
    expect(keyStep('Home', 5, 45)).toBe(0);
    expect(keyStep('End', 5, 45)).toBe(44);
  });

  it('stays inside the starts', () => {
    expect(keyStep('ArrowLeft', 0, 45)).toBe(0);
    expect(keyStep('PageDown', 2, 45)).toBe(0);
    expect(keyStep('ArrowRight', 44, 45)).toBe(44);
    expect(keyStep('PageUp', 43, 45)).toBe(44);
  });

  it('leaves other keys (and an empty slider) alone', () => {
    expect(keyStep('Tab', 3, 45)).toBeUndefined();
    expect(keyStep('Enter', 3, 45)).toBeUndefined();
    expect(keyStep('a', 3, 45)).toBeUndefined();
    expect(keyStep('ArrowRight', 0, 0)).toBeUndefined();
  });
});

describe('what the slider says', () => {
  it('names the start by time and bar number', () => {
    expect(barNumber(bars, 0.5)).toBe(1);
    expect(barNumber(bars, 0)).toBe(1);
    expect(barNumber(bars, 32.5)).toBe(17);
    expect(barNumber(bars, 33.9)).toBe(17);
    expect(minSec(42.4)).toBe('0:42');
    expect(minSec(75.6)).toBe('1:16');
    expect(windowText(bars, 42.5)).toBe('Starts at 0:43, bar 22');
    expect(windowText(bars, 32.5)).toBe('Starts at 0:33, bar 17');
  });

  it('names sections by kind, else by letter', () => {
    expect(sectionName({ label: 'B', kind: 'chorus' })).toBe('Chorus');
    expect(sectionName({ label: 'C', kind: null })).toBe('Section C');
  });

  it('shows the window only for a target shorter than the song', () => {
    const plan = { clamped_to_song: false, total_sec: 30 };
    expect(usesWindow(30, plan, 121)).toBe(true);
    expect(usesWindow(null, { ...plan, total_sec: 121 }, 121)).toBe(false);
    expect(usesWindow(undefined, plan, 121)).toBe(false);
    expect(usesWindow(200, { clamped_to_song: true, total_sec: 121 }, 121)).toBe(false);
  });
});

describe('after a tempo correction', () => {
  // Tapped a touch slower: bars every 2.05 s from 0.3 s; the window was at 48.5 s on the old grid.
  const corrected = Array.from({ length: 58 }, (_, i) => 0.3 + 2.05 * i);
  it('moves the window to the bar line of the corrected grid nearest where it was', () => {
    const was = 48.5;
    expect(corrected.some((b) => Math.abs(b - was) < 0.01)).toBe(false); // the old start is refused by the server
    const t = startAfterCorrection(corrected, duration, 30, was)!;
    expect(corrected).toContain(t);
    expect(t).toBeCloseTo(0.3 + 2.05 * 24, 6); // 49.5, the nearest
    expect(windowStarts(corrected, duration, 30)).toContain(t);
  });

  it('keeps the window inside the song: a start near the end goes to the last start that still fits', () => {
    const halved = Array.from({ length: 30 }, (_, i) => 0.5 + 4 * i); // bars twice as long
    const t = startAfterCorrection(halved, duration, 30, 90.5)!;
    expect(t).toBe(windowStarts(halved, duration, 30).at(-1));
    expect(t + 28).toBeLessThanOrEqual(duration);
  });

  it('has no start when no window of the target fits', () => {
    expect(startAfterCorrection([0, 4, 8], 10, 30, 4)).toBeNull();
  });

  it('says in words when the reel got shorter or the window moved, and nothing when neither did', () => {
    expect(correctionNote({ total_sec: 30, music_start: 48.5 }, { total_sec: 28, music_start: 8.5 }, 30, true)).toBe(
      'The reel is now 0:28 long (it was 0:30): the whole bars of the new tempo nearest the 0:30 you chose. ' +
        'The part of the song on the reel moved from 0:49 to 0:09, the nearest bar line of the new beat.',
    );
    expect(correctionNote({ total_sec: 30, music_start: 48.5 }, { total_sec: 30, music_start: 48.6 }, 30, true)).toBe('');
    expect(correctionNote({ total_sec: 30, music_start: 0 }, { total_sec: 30, music_start: 12 }, 30, false)).toBe('');
    expect(correctionNote({ total_sec: 12, music_start: 0 }, { total_sec: 14, music_start: 0 }, null, false)).toBe(
      'The reel is now 0:14 long (it was 0:12).',
    );
  });
});

import { clampedToSong } from '../../src/features/assembly/ReelLengthPicker';
import {
  PROGRESS_STEPS,
  acceptDropped,
  overReelCap,
  knownReelSeconds,
  refusedMessage,
  stepFor,
  stepsReached,
} from '../../src/features/assembly/steps';

const f = (name: string, type: string) => ({ name, type });

describe('dropped files', () => {
  it('keeps only video and audio files, and only the first audio file', () => {
    const r = acceptDropped(
      [
        f('a.mp4', 'video/mp4'),
        f('notes.txt', 'text/plain'),
        f('x.mp3', 'audio/mpeg'),
        f('b.mkv', 'video/x-matroska'),
        f('y.wav', 'audio/wav'),
        f('p.png', 'image/png'),
      ],
      false,
    );
    expect(r.videos.map((v) => v.name)).toEqual(['a.mp4', 'b.mkv']);
    expect(r.audio?.name).toBe('x.mp3');
    expect(r.refused.map((x) => x.name)).toEqual(['notes.txt', 'p.png']);
    expect(r.extraAudio.map((x) => x.name)).toEqual(['y.wav']);
  });

  it('says which files it left out and why', () => {
    const r = acceptDropped([f('notes.txt', 'text/plain')], false);
    expect(r.videos).toEqual([]);
    expect(refusedMessage(r.refused, r.extraAudio)).toBe(
      'notes.txt is not a video or audio file and was not added. Supported formats: MP4, MOV, AVI, MKV for video; MP3, WAV, AAC, M4A for audio.',
    );
    const two = acceptDropped(
      [f('a.txt', 'text/plain'), f('b.pdf', 'application/pdf'), f('x.mp3', 'audio/mpeg'), f('y.wav', 'audio/wav')],
      false,
    );
    expect(refusedMessage(two.refused, two.extraAudio)).toBe(
      'a.txt, b.pdf are not video or audio files and were not added. Supported formats: MP4, MOV, AVI, MKV for video; MP3, WAV, AAC, M4A for audio. Only one music track can be used: y.wav was not added.',
    );
    expect(refusedMessage([], [])).toBe('');
  });

  it('knows the supported formats by extension when the browser gives no type', () => {
    const r = acceptDropped([f('clip.MKV', ''), f('song.m4a', ''), f('notes', '')], false);
    expect(r.videos.map((v) => v.name)).toEqual(['clip.MKV']);
    expect(r.audio?.name).toBe('song.m4a');
    expect(r.refused.map((v) => v.name)).toEqual(['notes']);
  });

  it('keeps the audio already chosen', () => {
    expect(acceptDropped([f('x.mp3', 'audio/mpeg')], true).audio).toBeUndefined();
  });
});

describe('progress card steps', () => {
  it.each([
    ['queued', 0, 'Queued'],
    ['processing', 5, 'Initializing'],
    ['processing', 10, 'Processing'],
    ['processing', 55, 'Processing'],
    ['processing', 94, 'Processing'],
    ['processing', 96, 'Finalizing'],
    ['completed', 100, 'Complete'],
  ])('%s at %i%% reads %s (no stage named)', (status, progress, label) => {
    expect(stepFor(progress, status)).toBe(label);
  });

  it('reads the stage the server reports with the percentage, so the words and the bar agree', () => {
    // The render reports 'Processing' from 10 % on: 55 % is never 'Initializing'.
    expect(stepFor(55, 'processing', 'Processing')).toBe('Processing');
    expect(stepFor(3, 'processing', 'Initializing')).toBe('Initializing');
    expect(stepFor(96, 'processing', 'Finalizing')).toBe('Finalizing');
    expect(stepFor(40, 'processing', 'something else')).toBe('Processing');
    expect(stepFor(100, 'completed', 'Complete')).toBe('Complete');
  });

  it('marks the steps up to the current one as reached', () => {
    expect(PROGRESS_STEPS.slice(0, stepsReached('Processing') + 1).map((s) => s.label)).toEqual(['Queued', 'Initializing', 'Processing']);
    expect(stepsReached('Queued')).toBe(0);
    expect(stepsReached('Complete')).toBe(PROGRESS_STEPS.length - 1);
  });
});

describe('the reel length priced in the estimate', () => {
  it('is the music when there is music, else the clips added up, and unknown until every duration is read', () => {
    expect(knownReelSeconds([720], 90, true)).toBe(90);
    expect(knownReelSeconds([720], undefined, true)).toBeUndefined();
    expect(knownReelSeconds([600, 120], undefined, false)).toBe(720);
    expect(knownReelSeconds([600, undefined], undefined, false)).toBeUndefined();
  });

  it('lasts the target length when one is chosen, at most the song (or the footage)', () => {
    expect(knownReelSeconds([720], 240, true, 30)).toBe(30);
    expect(knownReelSeconds([720], 20, true, 30)).toBe(20);
    expect(knownReelSeconds([600, 120], undefined, false, 90)).toBe(90);
    expect(knownReelSeconds([10], undefined, false, 90)).toBe(10);
    expect(knownReelSeconds([720], 240, true, null)).toBe(240);
  });

  it('tells the user when the target is longer than the song', () => {
    expect(clampedToSong(90, 60)).toBe(true);
    expect(clampedToSong(30, 60)).toBe(false);
    expect(clampedToSong(null, 60)).toBe(false);
    expect(clampedToSong(90, undefined)).toBe(false);
  });

  it('is over the cap only past it, by a whole millisecond', () => {
    expect(overReelCap(60.1 + 59.9 + 60, 180)).toBe(false);
    expect(overReelCap(181, 180)).toBe(true);
    expect(overReelCap(720, 3600)).toBe(false);
  });
});

/** The Guide's four steps (spec: Getting Started, Upload Your Media, Configure Settings, Export and Share). */
export const GUIDE_STEPS = [
  {
    title: 'Getting Started',
    text: 'Open Create. You can try everything without an account; signing in is needed only to generate a reel.',
  },
  {
    title: 'Upload Your Media',
    text: 'Drop your video clips (MP4, MOV, AVI, MKV) and, if you like, one music track (MP3, WAV, AAC, M4A), or pick clips from the stock library.',
  },
  {
    title: 'Configure Settings',
    text:
      'Choose a pacing, beat mapping and Intelligence, a title with its font, size and position, fades, letterbox and the output name, and how long the reel is. ' +
      'Then press Preview edit (free): the plan preview shows every cut over the music’s beats, and you can lock a segment, re-roll it or move its cut a beat. ' +
      'When the reel is shorter than the song, the song window shows which part of the song it plays: drag it (or use the arrow keys) to another bar. ' +
      'If the cuts miss the beat, correct the tempo: Halve, Double, Shift half a beat, or Tap tempo along with the music; the correction is kept with the track.',
  },
  {
    title: 'Export and Share',
    text: 'Generate and follow the progress live. The finished reel lands in My Reels, ready to download, and you can share it to the showcase.',
  },
];

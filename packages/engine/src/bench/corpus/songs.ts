/**
 * The beat corpus: songs in the styles people bring, written as scores (MIDI notes at exact beat
 * positions, with a player's timing jitter) and played by sampled General MIDI instruments
 * (corpus.ts renders them). The true beats and downbeats are the score's.
 */
import { baiao, bossa, orchestral, pianoBallad, sixEight, strummedGuitar, waltz } from './songs-acoustic.js';
import { dance, funk, hipHop, house, introBreakFade, jazz, pop, punk, reggae, rock, trap } from './songs-band.js';
import type { Song } from './song-kit.js';

/** Every corpus song, in the order the beat bench reports them. */
export function corpusSongs(): Song[] {
  return [
    dance(),
    waltz(),
    bossa(),
    pianoBallad(),
    strummedGuitar(),
    house(),
    reggae(),
    rock(),
    hipHop(),
    sixEight(),
    baiao(),
    orchestral(),
    introBreakFade(),
    punk(),
    jazz(),
    pop(),
    funk(),
    trap(),
  ];
}

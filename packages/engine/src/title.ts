import { FONT_FAMILY } from './fonts.js';
import type { RenderSettings } from './settings.js';

/** How long the title shows at the start of the reel. */
export const TITLE_SECONDS = 4;

/**
 * Makes any text render literally in libass: no override blocks, no \N or \h escapes.
 * A backslash gets an invisible word joiner after it (so `\N` stays two plain characters),
 * braces use libass's `\{` and `\}` escapes, and line breaks become spaces.
 */
export function assLiteral(text: string): string {
  return text
    .replace(/\r\n|\r|\n/g, ' ')
    .replace(/\\/g, '\\\u2060')
    .replace(/\{/g, '\\{')
    .replace(/\}/g, '\\}');
}

const ALIGN = { top: 8, center: 5, bottom: 2 } as const;

const time = (s: number) => {
  const cs = Math.round(s * 100);
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const sec = Math.floor((cs % 6000) / 100);
  return `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}.${String(cs % 100).padStart(2, '0')}`;
};

/** An ASS script that shows the title for the first seconds at the chosen position. */
export function titleScript(t: RenderSettings['title_config'], width: number, height: number, totalSec: number): string {
  const end = Math.min(TITLE_SECONDS, totalSec);
  const family = FONT_FAMILY[t.font] ?? 'Roboto';
  const margin = Math.round(height * 0.08);
  // Font size is given for a 1080-line frame; scale it to the output.
  const size = Math.round((t.font_size * Math.min(width, height)) / 1080);
  return [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${width}`,
    `PlayResY: ${height}`,
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    `Style: Title,${family},${size},&H00FFFFFF,&H00FFFFFF,&H00000000,&H80000000,-1,0,0,0,100,100,0,0,1,${Math.max(2, Math.round(size / 24))},2,${ALIGN[t.position]},${margin},${margin},${margin},1`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    `Dialogue: 0,${time(0)},${time(end)},Title,,0,0,0,,{\\fad(250,400)}${assLiteral(t.text)}`,
    '',
  ].join('\n');
}

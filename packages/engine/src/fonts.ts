import fs from 'node:fs';
import path from 'node:path';

/**
 * Title fonts come from npm packages (TTF files). Arial-Bold and Helvetica-Bold map to Arimo
 * Bold, which is metric-compatible with both. Noto fonts are added to the same folder so libass
 * can fall back to them for emoji, Arabic and Hebrew.
 */
const FILES = {
  roboto: ['@expo-google-fonts/roboto', '700Bold/Roboto_700Bold.ttf'],
  arimo: ['@expo-google-fonts/arimo', '700Bold/Arimo_700Bold.ttf'],
  emoji: ['@expo-google-fonts/noto-emoji', '700Bold/NotoEmoji_700Bold.ttf'],
  arabic: ['@expo-google-fonts/noto-sans-arabic', '700Bold/NotoSansArabic_700Bold.ttf'],
  hebrew: ['@expo-google-fonts/noto-sans-hebrew', '700Bold/NotoSansHebrew_700Bold.ttf'],
} as const;

/** The family name libass looks up for each font choice of the spec. */
export const FONT_FAMILY: Record<string, string> = {
  'Roboto-Bold.ttf': 'Roboto',
  'Arial-Bold.ttf': 'Arimo',
  'Helvetica-Bold.ttf': 'Arimo',
};

export function fontFile(key: keyof typeof FILES): string {
  const [pkg, file] = FILES[key];
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
}

/**
 * Links the title fonts into `dir/fonts` and writes a fontconfig file that adds them to the
 * system's fonts. libass, given FONTCONFIG_FILE, then finds the chosen font by family and falls
 * back through fontconfig for glyphs it lacks (emoji, Arabic, Hebrew). (libass's own fontsdir
 * loading does not fall back to those fonts for characters beyond the BMP, such as most emoji.)
 * Returns the environment for the ffmpeg process.
 */
export function prepareFonts(dir: string): { FONTCONFIG_FILE: string } {
  const fonts = path.join(dir, 'fonts');
  fs.mkdirSync(fonts, { recursive: true });
  fs.mkdirSync(path.join(dir, 'fc-cache'), { recursive: true });
  for (const key of Object.keys(FILES) as Array<keyof typeof FILES>) {
    const src = fontFile(key);
    const dst = path.join(fonts, path.basename(src));
    if (!fs.existsSync(dst)) fs.symlinkSync(src, dst);
  }
  const conf = path.join(dir, 'fonts.conf');
  const esc = (p: string) => p.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  fs.writeFileSync(
    conf,
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>${esc(fonts)}</dir>\n  <cachedir>${esc(path.join(dir, 'fc-cache'))}</cachedir>\n</fontconfig>\n`,
  );
  return { FONTCONFIG_FILE: conf };
}

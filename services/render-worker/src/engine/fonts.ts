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

/** Copies (links) the title fonts into `dir`, which libass gets as its fonts folder. */
export function prepareFontsDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const key of Object.keys(FILES) as Array<keyof typeof FILES>) {
    const src = fontFile(key);
    const dst = path.join(dir, path.basename(src));
    if (!fs.existsSync(dst)) fs.symlinkSync(src, dst);
  }
  return dir;
}

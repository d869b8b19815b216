/**
 * What people call a library item: its stored name is the file it was imported from ("Neon
 * Tide.mp3"), and the lists show it without the file's extension ("Neon Tide"). A name that is
 * only an extension (".mp3") is left whole rather than shown empty.
 */
export function libraryTitle(filename: string): string {
  const title = filename.replace(/\.[a-z0-9]{1,5}$/i, '').trim();
  return title || filename;
}

/** What the rest of the app uses of the stock libraries. */
export { LibraryPickers } from './LibraryPickers';
export type { ChosenMusic } from './MusicLibraryModal';
export type { ChosenVideo } from './VideoLibraryModal';

import { lazy, Suspense } from 'react';
import type { User } from '../../api/types';
import type { ChosenMusic } from './MusicLibraryModal';
import type { ChosenVideo } from './VideoLibraryModal';

/** What the pickers need of a job form (Home's useJobForm has it). */
export interface LibraryChoices {
  libraryVideos: ChosenVideo[];
  chooseLibraryVideos: (list: ChosenVideo[]) => void;
  chooseLibraryMusic: (m: ChosenMusic | undefined) => void;
}

/** The library browsers load when one is opened, not with Home. */
const MusicLibraryModal = lazy(() => import('./MusicLibraryModal').then((m) => ({ default: m.MusicLibraryModal })));
const VideoLibraryModal = lazy(() => import('./VideoLibraryModal').then((m) => ({ default: m.VideoLibraryModal })));

/** Home's two library browsers, wired to the job form (the cap and its message from the user's plan). */
export function LibraryPickers({
  form,
  user,
  open,
  onClose,
}: {
  form: LibraryChoices;
  user: User;
  open: 'video' | 'music' | null;
  onClose: () => void;
}) {
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      {open === 'video' ? (
        <VideoLibraryModal
          cap={user.entitlements.library_selection_cap}
          capMessage={user.entitlements.messages.selection}
          initial={form.libraryVideos}
          onClose={onClose}
          onChoose={form.chooseLibraryVideos}
        />
      ) : (
        <MusicLibraryModal onClose={onClose} onChoose={form.chooseLibraryMusic} />
      )}
    </Suspense>
  );
}

import type { User } from '../../api/types';
import { MusicLibraryModal, type ChosenMusic } from './MusicLibraryModal';
import { VideoLibraryModal, type ChosenVideo } from './VideoLibraryModal';

/** What the pickers need of a job form (Home's useJobForm has it). */
export interface LibraryChoices {
  libraryVideos: ChosenVideo[];
  chooseLibraryVideos: (list: ChosenVideo[]) => void;
  chooseLibraryMusic: (m: ChosenMusic | undefined) => void;
}

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
  if (open === 'video')
    return (
      <VideoLibraryModal
        cap={user.entitlements.library_selection_cap}
        capMessage={user.entitlements.messages.selection}
        initial={form.libraryVideos}
        onClose={onClose}
        onChoose={form.chooseLibraryVideos}
      />
    );
  if (open === 'music') return <MusicLibraryModal onClose={onClose} onChoose={form.chooseLibraryMusic} />;
  return null;
}

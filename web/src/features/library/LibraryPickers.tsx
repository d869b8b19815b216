import type { User } from '../../api/types';
import type { JobForm } from '../assembly/useJobForm';
import { MusicLibraryModal } from './MusicLibraryModal';
import { VideoLibraryModal } from './VideoLibraryModal';

/** Home's two library browsers, wired to the job form (the cap and its message from the user's plan). */
export function LibraryPickers({
  form,
  user,
  open,
  onClose,
}: {
  form: JobForm;
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

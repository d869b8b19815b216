import { DomainError, ErrorCode } from '@reelsmith/kit';

export interface SelectedClip {
  key: string;
  objectKey: string;
  filename: string;
}

/** Billing's selection cap for the user, and media-library's library (repositories/library-selection.ts). */
export interface LibrarySelectionPorts {
  cap(user: Selector): Promise<{ cap: number; message: string }>;
  clips(keys: string[]): Promise<SelectedClip[]>;
}

export interface Selector {
  id: string;
  unlimited: boolean;
  isGuest: boolean;
}

/**
 * POST /video-library/select: the distinct clips asked for, at most as many as the user's plan
 * allows (billing's cap and wording, checked before media-library is asked), with the object keys a
 * job request names.
 */
export async function selectLibraryClips(ports: LibrarySelectionPorts, user: Selector, keys: string[]): Promise<SelectedClip[]> {
  const distinct = [...new Set(keys)];
  const { cap, message } = await ports.cap(user);
  if (distinct.length > cap) throw new DomainError(ErrorCode.INVALID_ARGUMENT, message, 'selection_limit');
  return ports.clips(distinct);
}

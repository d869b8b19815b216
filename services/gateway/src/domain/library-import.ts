import type { Readable } from 'node:stream';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';

/** What an admin adds to the stock libraries: the file as it streams in, its name and category. */
export interface LibraryFile {
  filename: string;
  category: string;
  /** Marked truncated by the multipart parser when the file went past its size limit. */
  body: Readable & { truncated?: boolean };
}

export interface LibraryImported {
  outcome: 'imported' | 'duplicate';
  key: string;
  kind: string;
  category: string;
}

export interface LibraryImportPorts {
  /** A new object key under the library's staging prefix, ending in `extension`. */
  stagingKey(extension: string): string;
  put(key: string, body: Readable): Promise<void>;
  delete(key: string): Promise<void>;
  /** media-library imports the staged object (probes it, keeps it under its content hash). */
  importObject(stagingKey: string, filename: string, category: string): Promise<LibraryImported>;
}

/**
 * An admin's library upload: staged in storage, then imported by media-library. A file cut off
 * at the size limit is deleted and refused; a refused or failed import deletes the staged copy,
 * except after a deadline, when media-library may still be importing it.
 */
export async function importLibraryFile(ports: LibraryImportPorts, file: LibraryFile): Promise<LibraryImported> {
  const staging = ports.stagingKey((/\.[a-z0-9]{2,5}$/i.exec(file.filename)?.[0] ?? '').toLowerCase());
  await ports.put(staging, file.body);
  if (file.body.truncated) {
    await ports.delete(staging);
    throw new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, 'The file is too large.', 'too_large');
  }
  try {
    return await ports.importObject(staging, file.filename, file.category);
  } catch (e) {
    if (!(isDomainError(e) && e.code === ErrorCode.DEADLINE_EXCEEDED)) await ports.delete(staging).catch(() => undefined);
    throw e;
  }
}

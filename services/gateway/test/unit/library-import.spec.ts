import { Readable } from 'node:stream';
import { DomainError, ErrorCode } from '@reelsmith/kit';
import { importLibraryFile, type LibraryImportPorts, type LibraryImported } from '../../src/domain/library-import';

/** Ports that record what was stored and deleted; `imported` decides media-library's answer. */
function ports(imported: () => Promise<LibraryImported>) {
  const stored = new Set<string>();
  const deleted: string[] = [];
  const p: LibraryImportPorts = {
    stagingKey: (ext) => `library/incoming/k${ext}`,
    async put(key, body) {
      for await (const _ of body) void _;
      stored.add(key);
    },
    async delete(key) {
      deleted.push(key);
      stored.delete(key);
    },
    importObject: () => imported(),
  };
  return { p, stored, deleted };
}
const file = (filename: string, truncated = false) => {
  const body = Readable.from([Buffer.from('data')]) as Readable & { truncated?: boolean };
  body.truncated = truncated;
  return { filename, category: 'general', body };
};
const done: LibraryImported = { outcome: 'imported', key: 'abcdef12', kind: 'video', category: 'general' };

describe("an admin's library upload (importLibraryFile)", () => {
  it('stages the file under its lower-cased extension and answers what media-library imported', async () => {
    const { p, stored, deleted } = ports(async () => done);
    await expect(importLibraryFile(p, file('Beach.MP4'))).resolves.toEqual(done);
    expect([...stored]).toEqual(['library/incoming/k.mp4']);
    expect(deleted).toEqual([]);
  });

  it('deletes a file cut off at the size limit and refuses it (413 too_large), never importing it', async () => {
    const importObject = jest.fn(async () => done);
    const { p, stored } = ports(importObject);
    await expect(importLibraryFile(p, file('big.mov', true))).rejects.toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      reason: 'too_large',
    });
    expect(stored.size).toBe(0);
    expect(importObject).not.toHaveBeenCalled();
  });

  it('deletes the staged copy when media-library refuses or fails, but keeps it after a deadline (it may still be importing)', async () => {
    const refused = ports(async () => {
      throw new DomainError(ErrorCode.INVALID_ARGUMENT, 'Not a video or music file.', 'unsupported_media');
    });
    await expect(importLibraryFile(refused.p, file('notes.txt'))).rejects.toMatchObject({ reason: 'unsupported_media' });
    expect(refused.stored.size).toBe(0);

    const late = ports(async () => {
      throw new DomainError(ErrorCode.DEADLINE_EXCEEDED, 'Timed out.', 'deadline');
    });
    await expect(importLibraryFile(late.p, file('long.wav'))).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    expect([...late.stored]).toEqual(['library/incoming/k.wav']);
  });
});

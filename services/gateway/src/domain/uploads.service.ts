import path from 'node:path';
import type { Readable } from 'node:stream';
import { DomainError, ErrorCode, isDomainError } from '@reelsmith/kit';

/** A file as it arrives: streamed, and marked truncated when it went past the size limit. */
export interface IncomingFile {
  filename: string;
  contentType: string;
  body: Readable & { truncated?: boolean };
}

export interface RegisteredUpload {
  objectKey: string;
  kind: string;
  displayName: string;
  sizeBytes: number;
  durationSec: number;
  width: number;
  height: number;
  /** Video: the thumbnail JPEG media-library made at registration; '' for audio. */
  thumbnailKey: string;
}

export interface UploadPorts {
  /** The user's upload limit and how to word it (billing). */
  limits(userId: string, unlimited: boolean): Promise<{ capBytes: number; message: string }>;
  /** A new object key under the user's upload prefix. */
  newKey(userId: string, extension: string): string;
  put(key: string, body: Readable, contentType: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** media-library probes it; anything not a usable video or audio file is deleted and refused. */
  register(userId: string, key: string, displayName: string, capBytes: number): Promise<RegisteredUpload>;
}

export interface Uploader {
  id: string;
  unlimited: boolean;
}

/**
 * An upload: streamed into storage under a generated key (the user's file name is kept only as
 * a display name), stopped at the plan's cap (the partial object is deleted, never kept
 * truncated), then registered with media-library, which probes it. A file stored and then not
 * registered (refused, or any failure) is deleted: no object without a record.
 */
export class UploadsService {
  constructor(private readonly ports: UploadPorts) {}

  /** The byte limit to stream a file of this user against. */
  async capFor(user: Uploader): Promise<{ capBytes: number; message: string }> {
    return this.ports.limits(user.id, user.unlimited);
  }

  async upload(user: Uploader, file: IncomingFile, limit: { capBytes: number; message: string }): Promise<RegisteredUpload> {
    const key = this.ports.newKey(user.id, path.extname(file.filename));
    const tooLarge = () => new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, limit.message, 'upload_limit');
    // The moment the file passes the limit ('limit' from the multipart parser), the write stops:
    // the caller answers at once instead of reading (and discarding) the rest of the body.
    let over = false;
    const onLimit = () => {
      over = true;
      file.body.destroy(tooLarge());
    };
    file.body.once('limit', onLimit);
    try {
      await this.ports.put(key, file.body, file.contentType);
    } catch (e) {
      // A write cut off part-way (over the limit, the client went away, storage failed) leaves no partial object.
      await this.ports.delete(key).catch(() => undefined);
      throw over ? tooLarge() : e;
    } finally {
      file.body.off('limit', onLimit);
    }
    if (over || file.body.truncated) {
      await this.ports.delete(key);
      throw tooLarge();
    }
    try {
      return await this.ports.register(user.id, key, file.filename, limit.capBytes);
    } catch (e) {
      // Stored but not registered: no record would ever count it against the quota or sweep it.
      // (A deadline passed is the exception: media-library may have registered it after all, and
      // its 24-hour sweep deletes registered uploads with their objects.)
      if (!(isDomainError(e) && e.code === ErrorCode.DEADLINE_EXCEEDED)) await this.ports.delete(key).catch(() => undefined);
      throw e;
    }
  }
}

import path from 'node:path';
import type { Readable } from 'node:stream';
import { DomainError, ErrorCode } from '@reelsmith/kit';

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
 * truncated), then registered with media-library, which probes it.
 */
export class UploadsService {
  constructor(private readonly ports: UploadPorts) {}

  /** The byte limit to stream a file of this user against. */
  async capFor(user: Uploader): Promise<{ capBytes: number; message: string }> {
    return this.ports.limits(user.id, user.unlimited);
  }

  async upload(user: Uploader, file: IncomingFile, limit: { capBytes: number; message: string }): Promise<RegisteredUpload> {
    const key = this.ports.newKey(user.id, path.extname(file.filename));
    await this.ports.put(key, file.body, file.contentType);
    if (file.body.truncated) {
      await this.ports.delete(key);
      throw new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, limit.message, 'upload_limit');
    }
    return this.ports.register(user.id, key, file.filename, limit.capBytes);
  }
}

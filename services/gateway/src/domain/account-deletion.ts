import { DomainError, ErrorCode } from '@reelsmith/kit';

/** Who asks, and from where (identity counts wrong passwords per address). */
export interface DeletionRequest {
  userId: string;
  isGuest: boolean;
  password: string;
  ip: string;
  requestId: string;
}

/** The services an account deletion touches (repositories/account-flows.ts binds them to gRPC). */
export interface AccountDeletionPorts {
  /** Identity: PERMISSION_DENIED when the password is wrong. Changes nothing. */
  checkPassword(r: DeletionRequest): Promise<void>;
  /** Media-library: every upload and reel of the user, with their objects (safe to repeat). */
  deleteMedia(r: DeletionRequest): Promise<void>;
  /** Billing: the ledger keeps anonymised rows (safe to repeat). */
  anonymiseBilling(r: DeletionRequest): Promise<void>;
  /** Identity: the account and its sessions; a mail confirms. */
  deleteAccount(r: DeletionRequest): Promise<void>;
}

export const guestCannotBeDeleted = () =>
  new DomainError(ErrorCode.PERMISSION_DENIED, 'The guest pass account cannot be deleted.', 'guest');

/**
 * POST /auth/delete-account. Every precondition is checked before the first side effect: the
 * shared guest pass account is refused and the password confirmed while nothing has been touched.
 * Then the user's things go, each step safe to repeat, and the account last: a failure part-way
 * (a service down) leaves an account that can sign in and ask again, which finishes the job.
 */
export class AccountDeletion {
  constructor(private readonly ports: AccountDeletionPorts) {}

  async delete(r: DeletionRequest): Promise<void> {
    if (r.isGuest) throw guestCannotBeDeleted();
    await this.ports.checkPassword(r);
    await this.ports.deleteMedia(r);
    await this.ports.anonymiseBilling(r);
    await this.ports.deleteAccount(r);
  }
}

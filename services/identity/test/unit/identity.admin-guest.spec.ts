import { ADMIN_EMAIL, GUEST_EMAIL, IP, setup, failure } from './identity.fakes';

describe('who is unlimited', () => {
  it('a privileged e-mail is admin and unlimited, whatever case it signed up with', async () => {
    const t = setup();
    const s = await t.verifiedUser('Boss@Reelsmith.test');
    expect(s.user).toMatchObject({ email: ADMIN_EMAIL, isAdmin: true, isGuest: false, unlimited: true });
    expect(await t.service.authenticate(s.token)).toMatchObject({ isAdmin: true, unlimited: true });
  });

  it('an admin flagged in the database is unlimited; a regular user is not', async () => {
    const t = setup();
    const ann = await t.verifiedUser('ann@example.com');
    const bob = await t.verifiedUser('bob@example.com');
    t.repo.users.get(ann.user.id)!.isAdmin = true;
    expect(await t.service.user(ann.user.id)).toMatchObject({ isAdmin: true, unlimited: true });
    expect(await t.service.user(bob.user.id)).toMatchObject({ isAdmin: false, isGuest: false, unlimited: false });
  });

  it('an unknown user id is NOT_FOUND', async () => {
    const t = setup();
    expect(await failure(() => t.service.user('00000000-0000-4000-8000-000000000000'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('guest pass', () => {
  it('is off until an admin enables it; enabling gives a password once, and the guest is unlimited but not admin', async () => {
    const t = setup();
    expect(await t.service.guestPass()).toEqual({ enabled: false, email: GUEST_EMAIL });
    const admin = await t.verifiedUser(ADMIN_EMAIL);

    const on = await t.service.setGuestPass(true, admin.user.id);
    expect(on).toMatchObject({ enabled: true, email: GUEST_EMAIL, password: expect.any(String) });
    expect(await t.service.guestPass()).toEqual({ enabled: true, email: GUEST_EMAIL });

    const s = await t.service.login(GUEST_EMAIL, on.password!, IP);
    expect(s.user).toMatchObject({ email: GUEST_EMAIL, isGuest: true, isAdmin: false, unlimited: true, emailVerified: true });
    expect(t.repo.sessions.get(`hmac(session:${s.token})`)?.loginType).toBe('guest');
  });

  it('disabling signs the guest out everywhere and refuses new guest sign-ins', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    const { password } = await t.service.setGuestPass(true, admin.user.id);
    const s = await t.service.login(GUEST_EMAIL, password!, IP);

    expect(await t.service.setGuestPass(false, admin.user.id)).toEqual({ enabled: false, email: GUEST_EMAIL });
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(GUEST_EMAIL, password!, IP))).toMatchObject({ reason: 'invalid_credentials' });
  });

  it('enabling again rotates the password: the old one and its sessions stop working', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    const first = await t.service.setGuestPass(true, admin.user.id);
    const s = await t.service.login(GUEST_EMAIL, first.password!, IP);
    const second = await t.service.setGuestPass(true, admin.user.id);

    expect(second.password).not.toBe(first.password);
    expect([...t.repo.users.values()].filter((u) => u.isGuest)).toHaveLength(1);
    expect(await failure(() => t.service.authenticate(s.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(GUEST_EMAIL, first.password!, IP))).toMatchObject({ reason: 'invalid_credentials' });
    await expect(t.service.login(GUEST_EMAIL, second.password!, IP)).resolves.toMatchObject({ user: { isGuest: true } });
  });

  it('enabling retires a regular account that holds the guest address: renamed, locked, signed out; a fresh guest takes the address', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    // Signed up before the address was reserved (sign-up refuses it now), then signed in.
    const squatterId = '99999999-9999-4999-8999-999999999999';
    await t.repo.createUser({
      id: squatterId,
      email: GUEST_EMAIL.toUpperCase(),
      passwordHash: 'hashed(squatter-pw)',
      verifiedAt: new Date(),
    });
    const squatter = await t.service.login(GUEST_EMAIL, 'squatter-pw', IP);
    await t.repo.replaceVerifications(squatterId, [{ kind: 'code', tokenHash: 'pending' }], new Date('2027-01-01T00:00:00Z'));

    const on = await t.service.setGuestPass(true, admin.user.id);

    expect(on).toMatchObject({ enabled: true, email: GUEST_EMAIL, password: expect.any(String) });
    const guest = await t.service.login(GUEST_EMAIL, on.password!, IP);
    expect(guest.user).toMatchObject({ email: GUEST_EMAIL, isGuest: true, isAdmin: false });
    expect(guest.user.id).not.toBe(squatterId);
    // The old account keeps its data under a reserved address, and nobody can use it any more.
    const retired = t.repo.users.get(squatterId)!;
    expect(retired).toMatchObject({ isGuest: false, email: `retired-${squatterId}@retired.reelsmith.local` });
    expect(await failure(() => t.service.authenticate(squatter.token))).toMatchObject({ reason: 'session_expired' });
    expect(await failure(() => t.service.login(retired.email, 'squatter-pw', IP))).toMatchObject({ reason: 'invalid_credentials' });
    expect(t.repo.verifications.filter((v) => v.userId === squatterId && !v.usedAt)).toEqual([]);
    expect(await failure(() => t.service.register(retired.email, 'another-pw', IP))).toMatchObject({ reason: 'reserved_email' });
  });

  it('disabling while a regular account holds the guest address leaves that account alone', async () => {
    const t = setup();
    const admin = await t.verifiedUser(ADMIN_EMAIL);
    await t.repo.createUser({ id: 'squatter', email: GUEST_EMAIL, passwordHash: 'hashed(squatter-pw)', verifiedAt: new Date() });
    expect(await t.service.setGuestPass(false, admin.user.id)).toEqual({ enabled: false, email: GUEST_EMAIL });
    expect(t.repo.pass).toEqual({ enabled: false, userId: null });
    expect(t.repo.users.get('squatter')!.email).toBe(GUEST_EMAIL);
  });
});

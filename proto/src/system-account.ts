/**
 * The system account: owns the demo reels rendered at first start. It exists in identity (seeded
 * by a migration, no usable password, reserved domain so nobody can sign up as it) and is
 * unlimited, so billing never charges it.
 */
export const SYSTEM_ACCOUNT = { id: '00000000-0000-4000-8000-00000000de30', email: 'demos@reelsmith.local' } as const;

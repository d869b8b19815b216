import { parseJobRequest } from '@reelsmith/proto';
import { jobRequestDefaults } from '../../src/api/schema.gen';

describe("Home's job request defaults (generated from the server's schema)", () => {
  it('make a request the server accepts, with no plan unless one was previewed', () => {
    expect(jobRequestDefaults).not.toHaveProperty('plan');
    const r = parseJobRequest({ ...jobRequestDefaults, media_files: ['uploads/u1/clip.mp4'] });
    expect(r.ok ? 'accepted' : r.problems).toBe('accepted');
  });
});

/**
 * `@reelsmith/engine/plan` is for services that plan and never render: loading it must not load
 * the half that runs ffmpeg or aubio. Each module of that half records being loaded.
 */
// Written out one by one on purpose: jest hoists each jest.mock above everything, so a loop or a
// helper cannot make them (a factory may only use variables named mock*). Each factory runs when
// its module is first loaded.
const mockLoaded: string[] = [];
jest.mock('../../src/exec', () => {
  mockLoaded.push('../../src/exec');
  return jest.requireActual('../../src/exec');
});
jest.mock('../../src/probe', () => {
  mockLoaded.push('../../src/probe');
  return jest.requireActual('../../src/probe');
});
jest.mock('../../src/music-analysis', () => {
  mockLoaded.push('../../src/music-analysis');
  return jest.requireActual('../../src/music-analysis');
});
jest.mock('../../src/clip-analysis', () => {
  mockLoaded.push('../../src/clip-analysis');
  return jest.requireActual('../../src/clip-analysis');
});
jest.mock('../../src/render', () => {
  mockLoaded.push('../../src/render');
  return jest.requireActual('../../src/render');
});
jest.mock('../../src/fonts', () => {
  mockLoaded.push('../../src/fonts');
  return jest.requireActual('../../src/fonts');
});
jest.mock('node:child_process', () => {
  mockLoaded.push('node:child_process');
  return jest.requireActual('node:child_process');
});
jest.mock('aubiojs', () => {
  mockLoaded.push('aubiojs');
  return jest.requireActual('aubiojs');
});

describe('the pure planning entry point', () => {
  beforeEach(() => {
    mockLoaded.length = 0;
  });

  it('plans, checks plans and knows the analysis versions without loading ffmpeg or aubio code', () => {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh load inside isolateModules
      const plan = require('@reelsmith/engine/plan') as typeof import('../../src/planning');
      expect(typeof plan.planEdit).toBe('function');
      expect(typeof plan.validatePlan).toBe('function');
      expect(typeof plan.rerollPlan).toBe('function');
      expect(plan.CLIP_ANALYSIS_VERSION).toBeGreaterThan(0);
      expect(plan.MUSIC_ANALYSIS_VERSION).toBeGreaterThan(0);
      const p = plan.planEdit({
        clips: [{ durationSec: 6 }, { durationSec: 6 }],
        pacing: 'standard',
        beatMapping: false,
        intelligence: false,
        fps: 30,
      });
      expect(p.segments.length).toBeGreaterThan(0);
    });
    expect(mockLoaded).toEqual([]);
  });

  it('(the check can fail) the whole engine does load them', () => {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh load inside isolateModules
      require('@reelsmith/engine');
    });
    expect(mockLoaded).toEqual(expect.arrayContaining(['../../src/exec', '../../src/render', '../../src/music-analysis']));
  });
});

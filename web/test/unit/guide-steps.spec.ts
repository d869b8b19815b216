import { GUIDE_STEPS } from '../../src/features/public/guide-steps';

describe('the Guide', () => {
  it('has the spec’s four steps', () => {
    expect(GUIDE_STEPS.map((s) => s.title)).toEqual(['Getting Started', 'Upload Your Media', 'Configure Settings', 'Export and Share']);
  });

  it('tells a newcomer about the plan preview, the song window and the tempo corrections', () => {
    const text = GUIDE_STEPS.map((s) => s.text).join(' ');
    expect(text).toMatch(/Preview edit/);
    expect(text).toMatch(/plan preview/);
    expect(text).toMatch(/song window/);
    for (const c of ['Halve', 'Double', 'Shift half a beat', 'Tap tempo']) expect(text).toContain(c);
  });
});

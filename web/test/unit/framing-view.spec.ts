import { framingFor } from '../../src/features/assembly/framing';
import { cornerAt, frameView, viewStyle } from '../../src/features/studio/framing-view';

const pan = {
  mode: 'subject' as const,
  camera: 'pan' as const,
  width: 606,
  height: 1080,
  path: [
    { t: 2, x: 0, y: 0 },
    { t: 4, x: 1314, y: 0 },
  ],
};
const src = { w: 1920, h: 1080 };

describe('the preview draws the plan framing', () => {
  it('follows the crop path as the render does: linear between keys, held outside', () => {
    expect(cornerAt(pan.path, 1)).toEqual({ x: 0, y: 0 });
    expect(cornerAt(pan.path, 3).x).toBeCloseTo(657, 6);
    expect(cornerAt(pan.path, 9)).toEqual({ x: 1314, y: 0 });
  });

  it('places the source so the crop fills the 9:16 frame', () => {
    const v = frameView(pan, 'subject', src, 9 / 16, 3);
    expect(v).toMatchObject({ kind: 'crop', y: 0, h: 1 });
    if (v.kind !== 'crop') throw new Error('crop expected');
    expect(v.w).toBeCloseTo(606 / 1920, 6);
    expect(v.x).toBeCloseTo(657 / 1920, 6);
    const css = viewStyle(v);
    // The video is 1920/606 of the frame wide and shifted left by the crop's corner.
    expect(parseFloat(css.width)).toBeCloseTo((100 * 1920) / 606, 1);
    expect(parseFloat(css.left)).toBeCloseTo((-100 * 657) / 606, 1);
    expect(css.height).toBe('100%');
  });

  it('fits letterbox framings and whole pictures; a plan without framings shows the request framing', () => {
    expect(frameView({ ...pan, mode: 'letterbox', camera: 'letterbox', width: 1920 }, 'subject', src, 9 / 16, 3)).toEqual({ kind: 'fit' });
    expect(frameView({ ...pan, width: 1080, height: 1920 }, 'subject', { w: 1080, h: 1920 }, 9 / 16, 3)).toEqual({ kind: 'fit' });
    expect(frameView(undefined, 'letterbox', src, 9 / 16, 3)).toEqual({ kind: 'fit' });
    const centre = frameView(undefined, 'center', src, 9 / 16, 3);
    expect(centre.kind === 'crop' && Math.abs(centre.x + centre.w / 2 - 0.5) < 1e-9).toBe(true);
    expect(viewStyle({ kind: 'fit' }).objectFit).toBe('contain');
  });
});

describe('the framing a reel gets', () => {
  it('follows the subject for vertical and square reels; landscape keeps the saved letterbox setting; a choice wins', () => {
    expect(framingFor('9:16')).toBe('subject');
    expect(framingFor('1:1')).toBe('subject');
    expect(framingFor('16:9')).toBe('letterbox');
    expect(framingFor('16:9', null, false)).toBe('center');
    expect(framingFor('9:16', 'letterbox')).toBe('letterbox');
  });
});

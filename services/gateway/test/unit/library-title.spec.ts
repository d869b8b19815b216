import { libraryTitle } from '../../src/domain/library-title';

describe('libraryTitle (a library item as people call it)', () => {
  it('drops the file extension, whatever its case', () => {
    expect(libraryTitle('Neon Tide.mp3')).toBe('Neon Tide');
    expect(libraryTitle('Golden Hour Drive.M4A')).toBe('Golden Hour Drive');
    expect(libraryTitle('first-user-beat.wav')).toBe('first-user-beat');
  });

  it('keeps the dots inside a name, and a name without an extension', () => {
    expect(libraryTitle('Mr. Blue Sky (live 2.0).mp3')).toBe('Mr. Blue Sky (live 2.0)');
    expect(libraryTitle('Paper Lanterns')).toBe('Paper Lanterns');
  });

  it('leaves a name that is only an extension whole', () => {
    expect(libraryTitle('.mp3')).toBe('.mp3');
  });
});

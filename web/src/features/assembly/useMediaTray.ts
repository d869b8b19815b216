import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { User } from '../../api/types';
import { authOpened } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import type { ChosenMusic, ChosenVideo } from '../library';
import { fetchUploadInfo, uploadFile } from './assembly.api';
import { acceptDropped, readDuration, refusedMessage } from './steps';
import { allSettled, moveItem, nextToUpload, type TrayItem } from './tray';
import { recallTray, rememberTray, restoredItem } from './trayMemory';
import { accountLeft } from './settingsMemory';

let nextId = 0;
const newId = () => `t${++nextId}`;

function fromFile(file: File): TrayItem {
  return {
    id: newId(),
    kind: file.type.startsWith('audio/') ? 'audio' : 'video',
    name: file.name,
    size: file.size,
    source: 'upload',
    state: 'waiting',
    progress: 0,
    playableUrl: URL.createObjectURL(file),
  };
}

const libraryClip = (v: ChosenVideo): TrayItem => ({
  id: `lib-${v.key}`,
  kind: 'video',
  name: v.filename,
  size: v.size,
  source: 'library',
  state: 'ready',
  progress: 1,
  objectKey: v.object_key,
  durationSec: v.duration,
  thumbnailUrl: `/api/v1/video-library/thumbnail/${encodeURIComponent(v.key)}`,
  playableUrl: `/api/v1/video-library/file/${encodeURIComponent(v.key)}`,
});

const libraryTrack = (m: ChosenMusic): TrayItem => ({
  id: `lib-${m.key}`,
  kind: 'audio',
  name: m.title,
  size: m.size,
  source: 'library',
  state: 'ready',
  progress: 1,
  objectKey: m.object_key,
  durationSec: m.duration,
  bpm: m.bpm,
  // The library's stream (Range, public): the instant preview plays it under the edit.
  playableUrl: `/api/v1/music-library/preview/${encodeURIComponent(m.key)}`,
});

/**
 * Home's media tray: files upload as soon as they are added (signed in), a few at a time, each
 * with its progress (the server's refusal is shown on the file); the uploads are remembered across
 * reloads; library clips and music replace uploaded ones and the other way round. `edited` is
 * called on every change to what would be rendered.
 */
export function useMediaTray(user: User | null, token: string | null | undefined, edited: () => void) {
  const dispatch = useAppDispatch();
  // Uploaded clips and music (tray order is the order of media_files).
  const [uploads, setUploads] = useState<TrayItem[]>([]);
  const [musicUpload, setMusicUpload] = useState<TrayItem | undefined>();
  // Library clips and music: choosing them clears uploaded videos (or audio), and vice versa.
  const [libraryVideos, setLibraryVideos] = useState<ChosenVideo[]>([]);
  const [libraryMusic, setLibraryMusic] = useState<ChosenMusic | undefined>();
  // Why some of the files just added were left out (a .txt, a second music track).
  const [refusedNote, setRefusedNote] = useState('');

  const clips: TrayItem[] = useMemo(() => (uploads.length ? uploads : libraryVideos.map(libraryClip)), [uploads, libraryVideos]);
  const music: TrayItem | undefined = musicUpload ?? (libraryMusic ? libraryTrack(libraryMusic) : undefined);
  const hasMusic = Boolean(music && music.state !== 'refused');

  // The local files behind upload items, and how to stop an upload that is removed.
  const files = useRef(new Map<string, File>());
  const aborts = useRef(new Map<string, AbortController>());
  const patch = useCallback((id: string, p: Partial<TrayItem>) => {
    setUploads((list) => list.map((i) => (i.id === id ? { ...i, ...p } : i)));
    setMusicUpload((m) => (m?.id === id ? { ...m, ...p } : m));
  }, []);

  // Durations are read by the browser at once (the estimate), then taken from the server's probe.
  useEffect(() => {
    for (const item of [...uploads, ...(musicUpload ? [musicUpload] : [])]) {
      const f = files.current.get(item.id);
      if (!f || item.durationSec !== undefined || item.state === 'refused') continue;
      void readDuration(f).then((sec) => sec > 0 && patch(item.id, { durationSec: sec }));
    }
    // Only new items need it; a later patch sets durationSec.
  }, [uploads.length, musicUpload?.id, patch]);

  // Uploads start as soon as files are added (signed in), a few at a time.
  useEffect(() => {
    if (!token) return;
    for (const item of nextToUpload([...uploads, ...(musicUpload ? [musicUpload] : [])])) {
      const f = files.current.get(item.id);
      if (!f) continue;
      const ctrl = new AbortController();
      aborts.current.set(item.id, ctrl);
      patch(item.id, { state: 'uploading', progress: 0 });
      uploadFile(f, token, (x) => patch(item.id, { progress: x }), ctrl.signal).then(
        (r) =>
          patch(item.id, {
            state: 'ready',
            progress: 1,
            objectKey: r.object_key,
            durationSec: r.duration_sec || item.durationSec,
            width: r.width,
            height: r.height,
            thumbnailUrl: r.thumbnail_url,
          }),
        (e: Error) => {
          if (e.name !== 'AbortError') patch(item.id, { state: 'refused', error: e.message || 'Upload failed' });
        },
      );
    }
  }, [uploads, musicUpload, token, patch]);

  // The stored uploads survive a reload: remembered in this browser for this account, and on load
  // the ones the server still has come back into the tray (trayMemory.ts).
  const restoredFor = useRef<string | null>(null);
  const [trayRestored, setTrayRestored] = useState(false);
  useEffect(() => {
    if (!user || !token || restoredFor.current === user.id) return;
    restoredFor.current = user.id;
    const saved = recallTray(localStorage, user.id);
    const all = saved ? [...saved.clips, ...(saved.music ? [saved.music] : [])] : [];
    void Promise.all(all.map((r) => fetchUploadInfo(r.objectKey, token).catch(() => null))).then((infos) => {
      const back = all.flatMap((r, i) => (infos[i] ? [restoredItem(r, infos[i])] : []));
      const clipsBack = back.filter((b) => b.kind === 'video');
      const musicBack = back.find((b) => b.kind === 'audio');
      if (clipsBack.length) setUploads((prev) => [...clipsBack, ...prev.filter((p) => !clipsBack.some((c) => c.id === p.id))]);
      if (musicBack) setMusicUpload((m) => m ?? musicBack);
      setTrayRestored(true);
    });
  }, [user, token]);
  useEffect(() => {
    if (user && trayRestored) rememberTray(localStorage, user.id, uploads, musicUpload);
  }, [user, trayRestored, uploads, musicUpload]);

  // Signing out (or in as someone else) takes the last account's clips and song off Home at once
  // (a shared computer); they stay remembered for that account's next sign-in.
  const shownFor = useRef<string | null>(null);
  const owner = user?.id ?? null;
  useEffect(() => {
    const before = shownFor.current;
    shownFor.current = owner;
    if (!accountLeft(before, owner)) return;
    clearRef.current();
    setRefusedNote('');
    restoredFor.current = null;
    setTrayRestored(false);
  }, [owner]);

  /** Forgets an uploaded item (stopping its upload). */
  const drop = (item: TrayItem) => {
    aborts.current.get(item.id)?.abort();
    aborts.current.delete(item.id);
    files.current.delete(item.id);
    if (item.playableUrl?.startsWith('blob:')) URL.revokeObjectURL(item.playableUrl);
  };

  const addFiles = (picked: File[]) => {
    const { videos: v, audio: a, refused, extraAudio } = acceptDropped(picked, false);
    setRefusedNote(refusedMessage(refused, extraAudio));
    edited();
    if (!user) dispatch(authOpened({ mode: 'signin', notice: 'Sign in to upload your files and make a reel.' }));
    if (v.length) {
      const items = v.map((f) => {
        const item = fromFile(f);
        files.current.set(item.id, f);
        return item;
      });
      setUploads((prev) => [...prev, ...items]);
      setLibraryVideos([]);
    }
    if (a) {
      const item: TrayItem = { ...fromFile(a), kind: 'audio' };
      files.current.set(item.id, a);
      if (musicUpload) drop(musicUpload);
      setMusicUpload(item);
      setLibraryMusic(undefined);
    }
  };

  const removeClip = (id: string) => {
    edited();
    const item = uploads.find((i) => i.id === id);
    if (item) {
      drop(item);
      setUploads((list) => list.filter((i) => i.id !== id));
    } else setLibraryVideos((list) => list.filter((v) => `lib-${v.key}` !== id));
  };

  const moveClip = (from: number, to: number) => {
    edited();
    if (uploads.length) setUploads((list) => moveItem(list, from, to));
    else setLibraryVideos((list) => moveItem(list, from, to));
  };

  const removeMusic = () => {
    edited();
    if (musicUpload) drop(musicUpload);
    setMusicUpload(undefined);
    setLibraryMusic(undefined);
  };

  const chooseLibraryVideos = (list: ChosenVideo[]) => {
    setLibraryVideos(list);
    edited();
    if (list.length) {
      uploads.forEach(drop);
      setUploads([]);
    }
  };

  const chooseLibraryMusic = (m: ChosenMusic | undefined) => {
    setLibraryMusic(m);
    edited();
    if (m && musicUpload) {
      drop(musicUpload);
      setMusicUpload(undefined);
    }
  };

  /** Empties the tray (Start Over). */
  const clear = () => {
    for (const i of uploads) drop(i);
    if (musicUpload) drop(musicUpload);
    setUploads([]);
    setMusicUpload(undefined);
    setLibraryVideos([]);
    setLibraryMusic(undefined);
  };
  const clearRef = useRef(clear);
  clearRef.current = clear;

  return {
    clips,
    music,
    hasMusic,
    uploading: !allSettled([...clips, ...(music ? [music] : [])]),
    libraryVideos,
    libraryMusic,
    refusedNote,
    addFiles,
    removeClip,
    moveClip,
    removeMusic,
    chooseLibraryVideos,
    chooseLibraryMusic,
    clear,
  };
}
export type MediaTrayState = ReturnType<typeof useMediaTray>;

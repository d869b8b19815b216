import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export const TOKEN_KEY = 'reelsmith.session_token';

const stored = () => {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
};

export type AuthMode = 'signin' | 'signup' | 'verify' | 'forgot';

interface SessionState {
  token: string | null;
  modal: { open: boolean; mode: AuthMode; email: string; notice: string };
}

const initialState: SessionState = { token: stored(), modal: { open: false, mode: 'signin', email: '', notice: '' } };

/** The session token (mirrored in localStorage) and the auth modal's state. */
export const session = createSlice({
  name: 'session',
  initialState,
  reducers: {
    signedIn(state, action: PayloadAction<string>) {
      state.token = action.payload;
      localStorage.setItem(TOKEN_KEY, action.payload);
      state.modal.open = false;
    },
    signedOut(state) {
      state.token = null;
      localStorage.removeItem(TOKEN_KEY);
    },
    authOpened(state, action: PayloadAction<{ mode: AuthMode; email?: string; notice?: string }>) {
      state.modal = {
        open: true,
        mode: action.payload.mode,
        email: action.payload.email ?? state.modal.email,
        notice: action.payload.notice ?? '',
      };
    },
    authClosed(state) {
      state.modal.open = false;
      state.modal.notice = '';
    },
  },
});

export const { signedIn, signedOut, authOpened, authClosed } = session.actions;

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { RouterProvider } from 'react-router-dom';
import { router } from './app/router';
import { store } from './app/store';
import { ErrorBoundary } from './components/CrashScreen';
import { AuthModal } from './features/auth/AuthModal';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <Provider store={store}>
        <RouterProvider router={router} />
        <AuthModal />
      </Provider>
    </ErrorBoundary>
  </StrictMode>,
);

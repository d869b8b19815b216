import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './app/router';
import { store } from './app/store';
import { ErrorBoundary } from './components/CrashScreen';
import { LazyAuthModal } from './features/auth';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <Provider store={store}>
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
        <LazyAuthModal />
      </Provider>
    </ErrorBoundary>
  </StrictMode>,
);

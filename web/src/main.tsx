import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { AppRoutes } from './app/router';
import { store } from './app/store';
import { ErrorBoundary } from './components/CrashScreen';
import { NavigationProvider } from './components/navigation';
import { LazyAuthModal } from './features/auth';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <Provider store={store}>
        <NavigationProvider>
          <AppRoutes />
        </NavigationProvider>
        <LazyAuthModal />
      </Provider>
    </ErrorBoundary>
  </StrictMode>,
);

import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { AppRoutes } from './shell/router';
import { store } from './base/store';
import { ErrorBoundary } from './components/CrashScreen';
import { NavigationProvider } from './components/navigation';
import { LazyAuthModal } from './features/auth';
import './styles.css';

// The first render is a transition, so React renders in slices of a few milliseconds and gives the
// main thread back between them instead of one long task (Lighthouse's total blocking time).
const root = createRoot(document.getElementById('root')!);
startTransition(() =>
  root.render(
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
  ),
);

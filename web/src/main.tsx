import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { Provider } from 'react-redux';
import { AppRoutes, preloadPage } from './shell/router';
import { store } from './base/store';
import { ErrorBoundary } from './components/CrashScreen';
import { NavigationProvider } from './components/navigation';
import { LazyAuthModal } from './features/auth';
import './styles.css';

// The first render waits for the page's code (which the page's HTML preloads beside this entry),
// so it shows the page at once. It is a transition, so React renders in slices of a few
// milliseconds and gives the main thread back between them instead of one long task (Lighthouse's
// total blocking time).
const root = createRoot(document.getElementById('root')!);
void preloadPage(window.location.pathname, store.dispatch).then(() =>
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
  ),
);

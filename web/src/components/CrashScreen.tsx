import { Component, type ErrorInfo, type ReactNode } from 'react';

/** The crash screen of spec section 2: 'Something went wrong', 'Reload Page', 'Go Home'. */
export function CrashScreen() {
  return (
    <div className="crash" role="alert">
      <h1>Something went wrong</h1>
      <p>An unexpected error stopped this page. Reloading usually helps.</p>
      <div className="row">
        <button className="btn primary" onClick={() => window.location.reload()}>
          Reload Page
        </button>
        <button className="btn" onClick={() => window.location.assign('/')}>
          Go Home
        </button>
      </div>
    </div>
  );
}

/** Catches render errors anywhere below it and shows the crash screen instead of a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('render failed', error, info.componentStack);
  }
  override render() {
    return this.state.failed ? <CrashScreen /> : this.props.children;
  }
}

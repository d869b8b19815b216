import { useEffect } from 'react';

/** Standalone page outside the shared layout; reads ?token= (verification arrives with accounts). */
export function VerifyEmailPage() {
  useEffect(() => {
    document.title = 'Verify Email · Reelsmith';
  }, []);
  return (
    <div className="standalone">
      <div className="card">
        <h1>Verify Email</h1>
      </div>
    </div>
  );
}

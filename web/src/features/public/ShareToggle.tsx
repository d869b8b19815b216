import { useState } from 'react';
import { useSetSharingMutation } from './public.api';
import { ErrorAlert } from '../../components/ErrorAlert';

/** 'Share to showcase' for a reel card: the owner allows admins to feature the reel publicly. */
export function ShareToggle({ reelId, shared }: { reelId: string; shared: boolean }) {
  const [setSharing, { isLoading, error }] = useSetSharingMutation();
  const [on, setOn] = useState(shared);
  return (
    <div>
      <label className="check">
        <input
          type="checkbox"
          checked={on}
          disabled={isLoading}
          onChange={async (e) => {
            const next = e.target.checked;
            setOn(next);
            const r = await setSharing({ id: reelId, shared: next });
            if ('error' in r) setOn(!next);
          }}
        />{' '}
        Share to showcase
      </label>
      {error && <ErrorAlert error={error} fallback="Sharing could not be changed." />}
    </div>
  );
}

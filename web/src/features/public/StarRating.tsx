import { useId } from 'react';
import { formatDecimal, formatPlural } from '../../base/format';
import { authOpened } from '../../base/session';
import { useAppDispatch } from '../../base/store';
import { ErrorAlert } from '../../components/ErrorAlert';
import type { User } from '../../api/types';
import { useRateReelMutation, type ShowcaseRating } from './public.api';

/** "4.5 average from 2 ratings", or "No ratings yet". */
export const ratingText = (r: Pick<ShowcaseRating, 'average' | 'count'> | undefined) =>
  r && r.count > 0 ? `${formatDecimal(r.average, 1)} average from ${formatPlural(r.count, 'rating')}` : 'No ratings yet';

/**
 * A showcase reel's stars: the average and count for everyone, and for a signed-in user a radio
 * group of 1-5 stars (arrow keys move and choose, as in any radio group). One rating per user:
 * choosing again replaces it.
 */
export function StarRating({ reelId, title, rating, user }: { reelId: string; title: string; rating?: ShowcaseRating; user: User | null }) {
  const [rate, state] = useRateReelMutation();
  const dispatch = useAppDispatch();
  const name = useId();
  const mine = state.data?.mine ?? rating?.mine ?? 0;
  const shown = state.data ?? rating;
  return (
    <div className="stars" data-testid="star-rating">
      {user ? (
        <fieldset className="star-group">
          <legend className="sr-only">Rate {title}</legend>
          {[1, 2, 3, 4, 5].map((n) => (
            <label key={n} className={n <= mine ? 'on' : ''}>
              <input
                type="radio"
                name={name}
                value={n}
                checked={mine === n}
                onChange={() => void rate({ id: reelId, stars: n })}
                className="sr-only"
              />
              <span aria-hidden="true">★</span>
              <span className="sr-only">{formatPlural(n, 'star')}</span>
            </label>
          ))}
        </fieldset>
      ) : (
        <button className="link" onClick={() => dispatch(authOpened({ mode: 'signin', notice: 'Sign in to rate reels.' }))}>
          Sign in to rate
        </button>
      )}
      <span className="muted" data-testid="rating-text">
        {ratingText(shown)}
        {mine > 0 && ` · you gave ${formatPlural(mine, 'star')}`}
      </span>
      {state.isError && <ErrorAlert inline error={state.error} fallback="Your rating could not be saved." />}
    </div>
  );
}

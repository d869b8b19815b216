import { useEffect, useState } from 'react';
import { checkNumber } from './tray';

/**
 * A number input that accepts typing normally: the draft is kept as typed (clearing it does not
 * snap back), checked against the server's limits, and the value changes only when it is valid;
 * the problem is shown under the field and reported to the form (Generate refuses while any).
 */
export function NumberField({
  label,
  value,
  limits,
  integer,
  step,
  onValue,
  onProblem,
}: {
  label: string;
  value: number;
  limits: { min?: number; max?: number };
  integer?: boolean;
  step?: number;
  onValue: (n: number) => void;
  onProblem: (problem: string) => void;
}) {
  const [draft, setDraft] = useState(String(value));
  const checked = checkNumber(draft, label, limits, integer);
  const problem = typeof checked === 'string' ? checked : '';
  useEffect(() => onProblem(problem), [problem, onProblem]);
  useEffect(() => () => onProblem(''), [onProblem]); // a hidden field holds nothing back
  const id = `num-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <label>
      {label}
      <input
        type="number"
        inputMode={integer ? 'numeric' : 'decimal'}
        min={limits.min}
        max={limits.max}
        step={step ?? (integer ? 1 : 0.1)}
        value={draft}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        onChange={(e) => {
          setDraft(e.target.value);
          const n = checkNumber(e.target.value, label, limits, integer);
          if (typeof n === 'number') onValue(n);
        }}
      />
      {problem && (
        <span className="field-error" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </label>
  );
}

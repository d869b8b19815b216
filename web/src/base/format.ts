/**
 * Every date, number, amount of money and counted noun the web app shows goes through here, so
 * that one page never says "11/26/2026" while the next says "Nov 26, 2026", and "1 views" cannot
 * happen. The app's text is English, so the formats are too (`en-US`); the time zone is the
 * visitor's.
 */
export const LOCALE = 'en-US';

/**
 * The formatters are made on first use, not when this module loads: the first `Intl` object of a
 * page costs tens of milliseconds of main-thread work (ICU data), and many pages show no date or
 * amount at start (Lighthouse's total blocking time, docs/benchmarks.md).
 */
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};
const dateFormat = once(() => new Intl.DateTimeFormat(LOCALE, { year: 'numeric', month: 'short', day: 'numeric' }));
const dateTimeFormat = once(
  () =>
    new Intl.DateTimeFormat(LOCALE, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    }),
);
const timeFormat = once(() => new Intl.DateTimeFormat(LOCALE, { hour: 'numeric', minute: '2-digit', second: '2-digit' }));

/**
 * `n` as `Intl.NumberFormat('en-US', { minimumFractionDigits, maximumFractionDigits })` writes it
 * ("-1,234.5"), without making one: rounded half away from zero on the number's shortest decimal
 * form (as ICU rounds, so 1.005 gives 1.01), grouped by thousands with commas. Numbers JavaScript
 * writes with an exponent, and NaN and infinities, go to `Intl` itself.
 */
function plainDecimal(n: number, minFraction: number, maxFraction: number): { sign: string; digits: string } | null {
  const text = String(Math.abs(n));
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const [whole = '', fraction = ''] = text.split('.');
  let digits = whole + fraction.slice(0, maxFraction).padEnd(maxFraction, '0');
  if (fraction.length > maxFraction && fraction.charCodeAt(maxFraction) >= 53 /* '5' */) {
    // Add one in the last kept place, carrying leftwards.
    const d = digits.split('');
    let i = d.length - 1;
    for (; i >= 0 && d[i] === '9'; i--) d[i] = '0';
    if (i >= 0) d[i] = String(Number(d[i]) + 1);
    else d.unshift('1');
    digits = d.join('');
  }
  const intPart = digits.slice(0, digits.length - maxFraction) || '0';
  let fracPart = digits.slice(digits.length - maxFraction);
  while (fracPart.length > minFraction && fracPart.endsWith('0')) fracPart = fracPart.slice(0, -1);
  const grouped = intPart.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+$)/g, ',');
  // Intl shows the sign of a negative number even when it rounds to zero ("-0"), and of -0.
  const sign = n < 0 || Object.is(n, -0) ? '-' : '';
  return { sign, digits: fracPart ? `${grouped}.${fracPart}` : grouped };
}

const intlNumber = (n: number, options: Intl.NumberFormatOptions) => new Intl.NumberFormat(LOCALE, options).format(n);

type When = string | number | Date | null | undefined;
const toDate = (w: When): Date | null => {
  if (w === null || w === undefined || w === '') return null;
  const d = w instanceof Date ? w : new Date(w);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** "Nov 26, 2026"; '' for no date or a bad one. */
export const formatDate = (w: When): string => {
  const d = toDate(w);
  return d ? dateFormat().format(d) : '';
};

/** "Nov 26, 2026, 3:04 PM"; '' for no date or a bad one. */
export const formatDateTime = (w: When): string => {
  const d = toDate(w);
  return d ? dateTimeFormat().format(d) : '';
};

/** "3:04:05 PM". */
export const formatTime = (w: When): string => {
  const d = toDate(w);
  return d ? timeFormat().format(d) : '';
};

/** A whole count with grouping: 12,345. */
export const formatCount = (n: number): string => {
  const p = plainDecimal(n, 0, 0);
  return p ? p.sign + p.digits : intlNumber(n, { maximumFractionDigits: 0 });
};

/** A number with exactly `digits` decimals: 12.40. */
export const formatDecimal = (n: number, digits: number): string => {
  const p = plainDecimal(n, digits, digits);
  return p ? p.sign + p.digits : intlNumber(n, { minimumFractionDigits: digits, maximumFractionDigits: digits });
};

/**
 * US dollars: always with cents ("$40.00") for accounts and ledgers, or `{ whole: true }` for
 * prices that drop ".00" ("$20", "$19.99").
 */
export const formatMoney = (dollars: number, opts: { whole?: boolean } = {}): string => {
  const p = plainDecimal(dollars, opts.whole ? 0 : 2, 2);
  return p
    ? `${p.sign}$${p.digits}`
    : intlNumber(dollars, { style: 'currency', currency: 'USD', minimumFractionDigits: opts.whole ? 0 : 2, maximumFractionDigits: 2 });
};

/**
 * The plural category of `n` in English, as `Intl.PluralRules('en-US')` gives it: "one" for 1
 * (and -1), "other" for every other number.
 */
export const pluralCategory = (n: number): 'one' | 'other' => (Math.abs(n) === 1 ? 'one' : 'other');

/**
 * A count and its noun, pluralised as English does: "1 view", "2 views", "1,200 credits".
 * `many` is the plural form when it is not `one` + "s".
 */
export const formatPlural = (n: number, one: string, many = `${one}s`): string =>
  `${formatCount(n)} ${pluralCategory(n) === 'one' ? one : many}`;

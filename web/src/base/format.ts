/**
 * Every date, number, amount of money and counted noun the web app shows goes through here, so
 * that one page never says "11/26/2026" while the next says "Nov 26, 2026", and "1 views" cannot
 * happen. The app's text is English, so the formats are too (`en-US`); the time zone is the
 * visitor's.
 */
export const LOCALE = 'en-US';

const dateFormat = new Intl.DateTimeFormat(LOCALE, { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat(LOCALE, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
});
const timeFormat = new Intl.DateTimeFormat(LOCALE, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
const countFormat = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const money2 = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
const moneyWhole = new Intl.NumberFormat(LOCALE, {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 0,
  maximumFractionDigits: 2,
});
const plural = new Intl.PluralRules(LOCALE);

type When = string | number | Date | null | undefined;
const toDate = (w: When): Date | null => {
  if (w === null || w === undefined || w === '') return null;
  const d = w instanceof Date ? w : new Date(w);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** "Nov 26, 2026"; '' for no date or a bad one. */
export const formatDate = (w: When): string => {
  const d = toDate(w);
  return d ? dateFormat.format(d) : '';
};

/** "Nov 26, 2026, 3:04 PM"; '' for no date or a bad one. */
export const formatDateTime = (w: When): string => {
  const d = toDate(w);
  return d ? dateTimeFormat.format(d) : '';
};

/** "3:04:05 PM". */
export const formatTime = (w: When): string => {
  const d = toDate(w);
  return d ? timeFormat.format(d) : '';
};

/** A whole count with grouping: 12,345. */
export const formatCount = (n: number): string => countFormat.format(n);

/** A number with exactly `digits` decimals: 12.40. */
export const formatDecimal = (n: number, digits: number): string =>
  new Intl.NumberFormat(LOCALE, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);

/**
 * US dollars: always with cents ("$40.00") for accounts and ledgers, or `{ whole: true }` for
 * prices that drop ".00" ("$20", "$19.99").
 */
export const formatMoney = (dollars: number, opts: { whole?: boolean } = {}): string => (opts.whole ? moneyWhole : money2).format(dollars);

/**
 * A count and its noun, pluralised by `Intl.PluralRules`: "1 view", "2 views", "1,200 credits".
 * `many` is the plural form when it is not `one` + "s".
 */
export const formatPlural = (n: number, one: string, many = `${one}s`): string =>
  `${formatCount(n)} ${plural.select(n) === 'one' ? one : many}`;

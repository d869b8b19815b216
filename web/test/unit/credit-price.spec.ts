import { cents, creditPriceRange, estimateInMoney, perCreditLine } from '../../src/features/payments/credit-price';

// The spec's catalogue (section 9).
const packs = [
  { price: 10, credits: 200 },
  { price: 20, credits: 400 },
  { price: 40, credits: 1000 },
  { price: 80, credits: 2500 },
];
const plans = [
  { monthly_price: 20, monthly_credits: 400, yearly_price: 192, yearly_credits: 4800 },
  { monthly_price: 60, monthly_credits: 1800, yearly_price: 576, yearly_credits: 21600 },
  { monthly_price: 170, monthly_credits: 6800, yearly_price: 1632, yearly_credits: 81600 },
];

describe('what a credit costs', () => {
  it('at each pack and plan', () => {
    expect(packs.map((p) => perCreditLine(p.price, p.credits))).toEqual(['5¢ a credit', '5¢ a credit', '4¢ a credit', '3.2¢ a credit']);
    expect(plans.map((p) => perCreditLine(p.monthly_price, p.monthly_credits))).toEqual(['5¢ a credit', '3.33¢ a credit', '2.5¢ a credit']);
    expect(plans.map((p) => perCreditLine(p.yearly_price, p.yearly_credits))).toEqual(['4¢ a credit', '2.67¢ a credit', '2¢ a credit']);
    expect(cents(0)).toBe('0¢');
  });

  it('from the cheapest to the dearest', () => {
    expect(creditPriceRange(packs, plans)).toBe('2¢ to 5¢');
    expect(creditPriceRange([{ price: 10, credits: 200 }], [])).toBe('5¢');
    expect(creditPriceRange([], [])).toBe('');
  });

  it('a reel’s estimate in money at the packs’ prices', () => {
    // 64 credits: 3.2¢ each in the 2,500 pack, 5¢ in the 200 pack.
    expect(estimateInMoney(64, packs)).toBe('$2.05 to $3.20 in credit packs');
    expect(estimateInMoney(64, [{ price: 10, credits: 200 }])).toBe('$3.20 in credit packs');
    expect(estimateInMoney(64, [])).toBe('');
    expect(estimateInMoney(0, packs)).toBe('');
  });
});

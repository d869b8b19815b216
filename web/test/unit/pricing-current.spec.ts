import { isCurrentPlan } from '../../src/features/payments/current';

describe("the plan cards' Current Plan", () => {
  const monthly = { plan: 'standard', status: 'active', billing_cycle: 'monthly' };
  it('marks the plan only on the tab of the cycle the user pays by', () => {
    expect(isCurrentPlan(monthly, 'standard', 'monthly')).toBe(true);
    expect(isCurrentPlan(monthly, 'standard', 'yearly')).toBe(false);
    expect(isCurrentPlan({ ...monthly, billing_cycle: 'yearly' }, 'standard', 'yearly')).toBe(true);
    expect(isCurrentPlan({ ...monthly, billing_cycle: 'yearly' }, 'standard', 'monthly')).toBe(false);
  });
  it('never marks another plan, a cancelled subscription or a signed-out visitor', () => {
    expect(isCurrentPlan(monthly, 'mid-tier', 'monthly')).toBe(false);
    expect(isCurrentPlan({ ...monthly, status: 'cancelled' }, 'standard', 'monthly')).toBe(false);
    expect(isCurrentPlan(undefined, 'standard', 'monthly')).toBe(false);
    expect(isCurrentPlan({ ...monthly, billing_cycle: null }, 'standard', 'monthly')).toBe(true);
  });
});

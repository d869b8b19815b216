/**
 * Whether a plan card shows 'Current Plan' (disabled): the spec's rule (same plan, status active)
 * on the tab of the cycle the user pays by. Standard monthly is not current on the Yearly tab:
 * there, Standard yearly is a plan the user can switch to. A subscription with no recorded cycle
 * counts as monthly, the default tab.
 */
export function isCurrentPlan(
  subscription: { plan: string; status: string; billing_cycle?: string | null } | undefined,
  planId: string,
  cycle: 'monthly' | 'yearly',
): boolean {
  if (!subscription || subscription.plan !== planId || subscription.status !== 'active') return false;
  return (subscription.billing_cycle || 'monthly') === cycle;
}

/** Plans and credit packs with the spec's prices and credits (section 9): the one source. */
export const PLAN_IDS = ['free', 'standard', 'mid-tier', 'corporate'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export const PAID_PLANS = ['standard', 'mid-tier', 'corporate'] as const;
export type BillingCycle = 'monthly' | 'yearly';

// The generated proto Plan has these fields too, on purpose: the domain keeps its own types and transport maps them.
export interface PlanInfo {
  id: Exclude<PlanId, 'free'>;
  name: string;
  monthlyPriceCents: number;
  yearlyPriceCents: number;
  monthlyCredits: number;
  yearlyCredits: number;
  storageMonthly: string;
  storageYearly: string;
  exportQuality: string;
  approxVideoMonthly: string;
  approxVideoYearly: string;
  features: string[];
  mostPopular: boolean;
}

export const PLANS: readonly PlanInfo[] = [
  {
    id: 'standard',
    name: 'Standard',
    monthlyPriceCents: 2000,
    yearlyPriceCents: 19200,
    monthlyCredits: 400,
    yearlyCredits: 4800,
    storageMonthly: '30 days',
    storageYearly: '1 year',
    exportQuality: 'HD 1080p',
    approxVideoMonthly: 'about 40 minutes',
    approxVideoYearly: 'about 8 hours',
    features: [],
    mostPopular: false,
  },
  {
    id: 'mid-tier',
    name: 'Mid-Tier',
    monthlyPriceCents: 6000,
    yearlyPriceCents: 57600,
    monthlyCredits: 1800,
    yearlyCredits: 21600,
    storageMonthly: '90 days',
    storageYearly: '2 years',
    exportQuality: '4K',
    approxVideoMonthly: 'about 3 hours',
    approxVideoYearly: 'about 36 hours',
    features: [],
    mostPopular: true,
  },
  {
    id: 'corporate',
    name: 'Corporate',
    monthlyPriceCents: 17000,
    yearlyPriceCents: 163200,
    monthlyCredits: 6800,
    yearlyCredits: 81600,
    storageMonthly: 'Unlimited',
    storageYearly: 'Unlimited',
    exportQuality: '8K',
    approxVideoMonthly: 'about 11+ hours',
    approxVideoYearly: 'about 136+ hours',
    features: ['Team collaboration', 'API access', 'White-label options'],
    mostPopular: false,
  },
];

export interface CreditPackInfo {
  id: string;
  credits: number;
  priceCents: number;
  bestValue: boolean;
}

/** Packs never expire. */
export const CREDIT_PACKS: readonly CreditPackInfo[] = [
  { id: 'credits_200', credits: 200, priceCents: 1000, bestValue: false },
  { id: 'credits_400', credits: 400, priceCents: 2000, bestValue: false },
  { id: 'credits_1000', credits: 1000, priceCents: 4000, bestValue: true },
  { id: 'credits_2500', credits: 2500, priceCents: 8000, bestValue: false },
];

export const isPaidPlan = (plan: string): plan is (typeof PAID_PLANS)[number] => (PAID_PLANS as readonly string[]).includes(plan);

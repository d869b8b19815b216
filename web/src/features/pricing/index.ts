/** What the rest of the app uses of the pricing page (its page is loaded lazily by the router). */
export { PackCards, PlanCards, type Cycle } from './PricingPage';

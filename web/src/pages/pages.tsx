export { AdminPage } from '../features/admin/AdminPage';

export { DemosPage } from '../features/public';
export { GuidePage } from '../features/public';
export { PricingPage } from '../features/pricing/PricingPage';
export { ReelsPage } from '../features/reels/ReelsPage';
export { LibraryPage } from '../features/library/LibraryPage';
export { AboutPage } from '../features/public';
export { HallOfFamePage } from '../features/public';
export { ContactPage } from '../features/public';
export { MarketplacePage } from '../features/marketplace/MarketplacePage';

export { NotFoundPage } from '../features/public';

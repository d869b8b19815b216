import { Link } from 'react-router-dom';
import { Page } from './Page';

// Pages that later work fills in; each shows its title for now.
export const DemosPage = () => <Page title="Demo Gallery" />;
export const GuidePage = () => <Page title="Guide" />;
export const PricingPage = () => <Page title="Pricing" />;
export const ReelsPage = () => <Page title="My Reels" />;
export const LibraryPage = () => <Page title="Video Library" />;
export const AboutPage = () => <Page title="About Us" />;
export const HallOfFamePage = () => <Page title="Hall of Fame" />;
export const ContactPage = () => <Page title="Contact" />;
export const AdminPage = () => <Page title="System Dashboard" />;
export const MarketplacePage = () => <Page title="Footage Marketplace" />;

export const NotFoundPage = () => (
  <Page title="Page not found">
    <p>There is nothing at this address.</p>
    <Link to="/" className="btn primary">
      Go Home
    </Link>
  </Page>
);

import './public.css';

export { AboutPage } from './AboutPage';
export { DemosPage } from './DemosPage';
export { GuidePage } from './GuidePage';
export { HallOfFamePage } from './HallOfFamePage';
export { NotFoundPage } from './NotFoundPage';
export { usePageMeta } from './usePageMeta';
export { ContactPage } from './ContactPage';
export { InboxSection } from './InboxSection';
export { ShowcaseAdminSection } from './ShowcaseAdminSection';
export { ShareToggle } from './ShareToggle';

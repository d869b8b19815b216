/** What the rest of the app uses of the footage marketplace. */
export { ReviewOffersModal, useOfferCount } from './ReviewOffers';

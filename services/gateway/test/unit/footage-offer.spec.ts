import { offerTerms } from '../../src/domain/footage-offer';

describe("an admin's footage offer (offerTerms)", () => {
  it('is whole cents or whole credits, the other 0, with US$0.10 and 50 credits when no amount is given', () => {
    expect(offerTerms({ type: 'cash', amount: 0.29 })).toEqual({ offerType: 'cash', cashCents: 29n, credits: 0n });
    expect(offerTerms({ type: 'cash' })).toEqual({ offerType: 'cash', cashCents: 10n, credits: 0n });
    expect(offerTerms({ type: 'credits', amount: 120 })).toEqual({ offerType: 'credits', cashCents: 0n, credits: 120n });
    expect(offerTerms({ type: 'credits' })).toEqual({ offerType: 'credits', cashCents: 0n, credits: 50n });
  });
});

// The e2e and browser projects' default test time limit. These specs drive the whole product (and
// a browser) on a machine whose two cores also run the other lane's renders, so a test without a
// limit of its own gets two minutes, not Jest's global 30 s; a test that hangs still fails.
jest.setTimeout(120_000);

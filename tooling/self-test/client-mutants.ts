// The self-test's mutant clients (`client-driver.ts --mutant NAME`): each breaks one client requirement, which the kit must catch alone.

/** A mutant of credit402/client and the requirements the kit's client mode must fail for it, no more, no fewer. */
export interface ClientMutant {
  name: string;
  /** How it differs from the correct client. */
  change: string;
  /** The IDs of the requirements it must fail. */
  fails: readonly string[];
}

/** Every mutant, each differing from the correct client in exactly one way. */
export const CLIENT_MUTANTS: readonly ClientMutant[] = [
  { name: 'pays-twice', change: 'sends each request carrying a paymentMethodId twice', fails: ['CR-16.7'] },
  { name: 'other-origin', change: 'sends the clientId it got from one origin to requests to any other origin', fails: ['CR-16.9'] },
  { name: 'ignores-min-top-up', change: "sends the callback's topUpAmount even below minTopUp", fails: ['CR-16.3'] },
  { name: 'loops-on-payment-errors', change: 'sends a request answered with a payment error again, several times', fails: ['CR-16.5'] },
  { name: 'repays-insufficient', change: 'pays an insufficient_credits challenge with the last approved payment method, unasked', fails: ['CR-16.10'] },
  { name: 'two-round-trips', change: 'never sends the kept clientId up front; sends it only after a challenge', fails: ['CR-16.14'] },
  { name: 'concurrent-charges', change: 'a fresh client per call: concurrent calls each pay', fails: ['CR-16.8'] },
  { name: 'no-callback-once-funded', change: "once it keeps a clientId for an origin, returns that origin's challenges without asking the callback", fails: ['CR-16.10'] },
  { name: 'follows-redirects', change: 'lets fetch follow redirects, with the payment header, to another origin too', fails: ['CR-16.9'] },
  { name: 'drops-headers-on-payment', change: 'sends the request that pays without the headers the caller set', fails: ['CR-16.2'] },
  { name: 'string-amount', change: "hands its callback the challenge's amount as a string (\"500\")", fails: ['CR-16.1'] },
];

/** The mutant called `name`, if any. */
export const clientMutant = (name: string): ClientMutant | undefined => CLIENT_MUTANTS.find((mutant) => mutant.name === name);

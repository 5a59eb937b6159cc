// The routes of the kit's scripted server: the priced ones (as a seed server's `routes`) and the free ones with their fixed answers.

/** A priced route, as the seed's RouteConfig with its defaults applied. */
export interface PricedRoute {
  amount: number;
  currency: string;
  minTopUp: number;
  description?: string;
}

/** The publishable key the scripted server sends in its challenges (CR-5.3). */
export const PUBLISHABLE_KEY = 'pk_test_credit402clientkit';

/** Priced routes by `<METHOD> <path>`; `POST /api/echo` answers with the body it received. */
export const PRICED_ROUTES: Readonly<Record<string, PricedRoute>> = {
  'GET /api/weather': { amount: 500, currency: 'usd', minTopUp: 50000, description: 'Weather data' },
  'GET /api/cheap': { amount: 100, currency: 'usd', minTopUp: 50000 },
  'POST /api/echo': { amount: 500, currency: 'usd', minTopUp: 50000 },
};

/** Free routes by `<METHOD> <path>` and the status of their application answer; any other request is answered 404. */
export const FREE_ROUTES: Readonly<Record<string, number>> = {
  'GET /free': 200,
  'GET /missing': 404,
  'GET /broken': 500,
};

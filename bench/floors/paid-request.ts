// The least a floor does with a paid request: decode the `payment` header, check the clientId, encode the answer header.

/** The route every floor serves, as the reference server's gated `GET /api/nodesc`. */
export const FLOOR_ROUTE = '/api/nodesc';
/** The free route every floor serves, as the reference server's ungated `GET /free`: the bare framework's cost of a free request. */
export const FLOOR_FREE_ROUTE = '/free';
/** The body of the free route, the reference's demo body for `GET /free`. */
export const FREE_BODY = Object.freeze({ route: `GET ${FLOOR_FREE_ROUTE}`, gated: false });
/** What one paid request costs, in units (the reference's price of that route). */
export const FLOOR_PRICE = 1;

const CLIENT_ID = /^[0-9a-f]{64}$/;

/** The clientId of a `payment` header (base64 JSON `{ clientId }`), or undefined when it is missing or malformed. */
export function paidClientId(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  try {
    const { clientId } = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { clientId?: unknown };
    return typeof clientId === 'string' && CLIENT_ID.test(clientId) ? clientId : undefined;
  } catch {
    return undefined;
  }
}

/** The `payment-response` header of a served request: base64 JSON, as the reference's. */
export function paymentResponse(clientId: string, creditsRemaining: number): string {
  return Buffer.from(JSON.stringify({ success: true, creditsRemaining, clientId }), 'utf8').toString('base64');
}

/** The body a floor answers, the reference's demo body for the route. */
export function servedBody(creditsRemaining: number): { route: string; gated: boolean; creditsRemaining: number } {
  return { route: `GET ${FLOOR_ROUTE}`, gated: true, creditsRemaining };
}

// Mutant gateway target: forwards the client's payment header to the upstream (forwardPaymentHeader on), as a gateway configured to (its conformance runs leave it off) does: breaks CR-15.2.
import { serveGatewayMutant } from './serve-gateway-mutant.ts';

await serveGatewayMutant('gateway-forwards-payment', { options: { forwardPaymentHeader: true } });

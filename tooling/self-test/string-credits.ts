// Mutant target: the payment-response header carries creditsRemaining as a string (breaks the PaymentResponse schema, CR-6.2).
import { serveMutant } from './serve-mutant.ts';

await serveMutant('string-credits', (processor) => processor, (gate) => ({
  ...gate,
  async handle(request) {
    const decision = await gate.handle(request);
    if (decision.action !== 'serve') return decision;
    const payment = { ...decision.payment, creditsRemaining: String(decision.payment.creditsRemaining) };
    return { ...decision, headers: { 'payment-response': Buffer.from(JSON.stringify(payment)).toString('base64') } };
  },
}));

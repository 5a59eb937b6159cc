// The plain-text transcript of a failed client scenario: each call with the driver's reply, the requests the server received, the charges.
import type { CallResult } from './driver-replies.ts';
import type { RecordedRequest } from './scripted-server.ts';
import type { ClientWorld } from './world.ts';

const short = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}…` : text);

function requestLines(request: RecordedRequest): string[] {
  const lines = [`  [${request.seq}] server ${request.origin}: ${request.method} ${request.target} → ${request.status} (${request.outcome})`];
  if (request.paymentRaw !== undefined) {
    lines.push(`      payment: ${JSON.stringify(short(request.paymentRaw))}`);
    lines.push(`      decoded: ${request.payment ? JSON.stringify(request.payment) : 'NOT DECODABLE'}`);
  }
  if (request.body !== '') lines.push(`      body: ${JSON.stringify(short(request.body))}`);
  return lines;
}

/** What a call returned, without the transport's headers: status, `payment-response`, body, or the error. */
function resultLine(result: CallResult): string {
  if (result.error) return `error ${JSON.stringify(result.error)}`;
  const paymentResponse = result.headers['payment-response'];
  const header = paymentResponse === undefined ? '' : ` payment-response ${JSON.stringify(short(paymentResponse, 200))}`;
  return `${result.status}${header} body ${JSON.stringify(short(result.body ?? '', 200))}`;
}

/** The transcript text. */
export function formatClientTranscript(world: ClientWorld): string {
  const ids = world.tags.filter((tag) => tag.startsWith('@CR-')).map((tag) => tag.slice(1));
  const lines = [`Scenario: ${world.scenarioName}`, `Requirements: ${ids.join(' ')}`, ''];
  for (const note of world.notes) lines.push(`note: ${note}`);
  for (const [index, call] of world.calls.entries()) {
    lines.push(`Call ${index + 1}: ${call.specs.map((spec) => `${spec.method} ${spec.url}`).join(', ')}; callback ${JSON.stringify(call.callback)}`);
    lines.push(`  requests the server received (${call.requests.length}):`);
    for (const request of call.requests) lines.push(...requestLines(request).map((line) => `  ${line}`));
    lines.push('  the driver reported:');
    lines.push(...call.reply.results.map((result, at) => `    result ${at + 1}: ${resultLine(result)}`));
    for (const callback of call.reply.callbacks) lines.push(`    callback asked: ${JSON.stringify(callback)}`);
    if (call.reply.callbacks.length === 0) lines.push('    the callback was not asked');
  }
  const charges = world.server.charges;
  lines.push('', `Charges (${charges.length}):`);
  for (const charge of charges) lines.push(`  server ${charge.origin}: ${charge.units} units on ${charge.paymentMethodId} → clientId ${charge.clientId} (${charge.chargeId})`);
  return lines.join('\n');
}

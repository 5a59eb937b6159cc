// The conformance control routes (store faults, records) as a fetch handler, for Web-standard servers: any body read as text, which the control validates.
import { CONTROL_BODY_LIMIT, RECORDS_PATH, STORE_FAULTS_PATH, type ConformanceControl } from '../../conformance-control/conformance-control.ts';
import { bodyWithin, jsonResponse } from './read-body.ts';
import { urlTarget } from './request-facts.ts';

/** The paths the control routes answer (`/_conformance/store-faults`, `/_conformance/records`). */
export const CONTROL_PATHS: readonly string[] = [STORE_FAULTS_PATH, RECORDS_PATH];

/**
 * Answers one request to a control route (mount it on {@link CONTROL_PATHS}, every method): for conformance runs
 * only, since they inject store faults. A body over the control's limit is answered 413.
 */
export function controlFetchHandler(control: ConformanceControl): (request: Request) => Promise<Response> {
  return async (request) => {
    const raw = await bodyWithin(request, CONTROL_BODY_LIMIT);
    if (raw instanceof Response) return raw;
    const body = raw.byteLength === 0 ? undefined : new TextDecoder().decode(raw);
    const answer = await control.handle({ method: request.method, url: urlTarget(request.url), ...(body === undefined ? {} : { body }) });
    return jsonResponse(answer.status, answer.body, answer.headers);
  };
}

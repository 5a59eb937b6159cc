// The conformance control routes on a Fastify app (the reference server's and the gateway's), in a scope that takes any body as text.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_BODY_LIMIT, RECORDS_PATH, STORE_FAULTS_PATH, type ConformanceControl } from '../../conformance-control/conformance-control.ts';

/** Mounts the control routes in a scope of their own that takes any body as text, which the control validates. */
export async function mountControlFastify(app: FastifyInstance, control: ConformanceControl): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: CONTROL_BODY_LIMIT }, (_request, body, done) => done(null, body));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const body = typeof request.body === 'string' ? request.body : undefined;
      const answer = await control.handle({ method: request.method, url: request.url, body });
      return reply.code(answer.status).headers(answer.headers ?? {}).send(answer.body);
    };
    for (const url of [STORE_FAULTS_PATH, RECORDS_PATH]) scope.route({ method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'], url, handler });
  });
}

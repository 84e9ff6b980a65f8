import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { errorSerializer } from '../lib/log-safe.ts';

export { errorSerializer };

/**
 * What a request log line holds. URLs can carry activation tokens (/activate/act_…), so they are
 * redacted; headers are never logged (Authorization, cookies). See the canary test.
 */
export const redactUrl = (url: string): string =>
  url.replace(/(act|sk_live|sk_test|whsec)_[A-Za-z0-9_-]+/g, '$1_[redacted]').replace(/([?&](token|key|secret)=)[^&]*/gi, '$1[redacted]');

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  remoteAddress: req.ip,
});

export const loggerOptions = (level: string) => ({
  level,
  serializers: { req: requestSerializer, err: (e: unknown) => errorSerializer(e) },
  redact: { paths: ['req.headers', '*.password', '*.apiKey', '*.secret', '*.token', '*.key'], censor: '[redacted]' },
});

/**
 * One line per request, written when the answer has gone, with the request in it: Fastify's default
 * is two (`incoming request`, `request completed`), which at the default `info` level cost a cached
 * read 45–65 µs (docs/performance.md, "Request logging"). The other log lines Fastify writes (errors
 * of the default handler, route not found…) keep their default behaviour.
 */
export class OneLineLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) request.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

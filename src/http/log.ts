import type { FastifyRequest } from 'fastify';
import { errorSerializer } from '../lib/log-safe.ts';

export { errorSerializer };

/**
 * What a request log line holds. URLs can carry activation tokens (/activate/act_…), so they are
 * redacted; headers are never logged (Authorization, cookies). See the canary test.
 */
export const redactUrl = (url: string): string =>
  url.replace(/(act|sk_live|whsec)_[A-Za-z0-9_-]+/g, '$1_[redacted]').replace(/([?&](token|key|secret)=)[^&]*/gi, '$1[redacted]');

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

import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A minimal browser for server-rendered pages through app.inject: keeps cookies, reads the CSRF
 * token from the last form, follows nothing automatically (tests check each redirect).
 */
export class PageClient {
  readonly app: FastifyInstance;
  cookies = new Map<string, string>();
  last: LightMyRequestResponse | undefined;
  ip: string;

  constructor(app: FastifyInstance, ip = '203.0.113.7') {
    this.app = app;
    this.ip = ip;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  private remember(r: LightMyRequestResponse) {
    const set = r.headers['set-cookie'];
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
    this.last = r;
    return r;
  }

  async get(url: string, headers: Record<string, string> = {}) {
    return this.remember(
      await this.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: { ...this.cookieHeader(), ...headers } }),
    );
  }

  /** The CSRF token of the form on the last page. */
  csrf(): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(this.last?.body ?? '');
    if (!m) throw new Error('no CSRF token on the last page');
    return m[1]!;
  }

  async postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        payload: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.cookieHeader(), ...headers },
      }),
    );
  }

  async postMultipart(url: string, fields: Record<string, string>, file?: { name: string; filename: string; data: Buffer }) {
    const boundary = '----page' + Math.random().toString(16).slice(2);
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(fields))
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    if (file)
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/x-pkcs12\r\n\r\n`,
        ),
        file.data,
        Buffer.from('\r\n'),
      );
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        payload: Buffer.concat(parts),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...this.cookieHeader() },
      }),
    );
  }
}

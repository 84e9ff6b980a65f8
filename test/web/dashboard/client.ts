import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A minimal browser over app.inject for dashboard HTTP tests: keeps cookies, reads the CSRF token
 * of the last page, posts url-encoded forms. No redirects are followed (tests look at them).
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf = '';
  readonly app: FastifyInstance;
  readonly ip: string;

  constructor(app: FastifyInstance, ip = '198.51.100.7') {
    this.app = app;
    this.ip = ip;
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(r: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of r.cookies) {
      if (c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now()) || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const m = /name="_csrf" value="([^"]+)"/.exec(r.body);
    if (m) this.csrf = m[1]!;
    return r;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({ method: 'GET', url, remoteAddress: this.ip, headers: { cookie: this.cookieHeader(), ...headers } }),
    );
  }

  /** POSTs a form; `_csrf` is the last page's token unless given (null = none at all). */
  async post(
    url: string,
    form: Record<string, string | string[]> = {},
    opts: { csrf?: string | null; headers?: Record<string, string> } = {},
  ) {
    const body = new URLSearchParams();
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) body.append('_csrf', csrf);
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        remoteAddress: this.ip,
        payload: body.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...(opts.headers ?? {}) },
      }),
    );
  }

  session(name = 'dte_session'): string | undefined {
    return this.cookies.get(name);
  }

  /** Signs up a new account through the pages; returns its e-mail. */
  async signUp(name = 'Mi SaaS', password = 'una clave bien larga'): Promise<string> {
    const email = `dash-${Math.random().toString(36).slice(2)}@example.com`;
    await this.get('/signup');
    const r = await this.post('/signup', { name, email, password });
    if (r.statusCode !== 303) throw new Error(`sign-up failed: ${r.statusCode} ${r.body.slice(0, 500)}`);
    await this.get('/');
    return email;
  }

  async logIn(email: string, password = 'una clave bien larga'): Promise<LightMyRequestResponse> {
    await this.get('/login');
    const r = await this.post('/login', { email, password });
    if (r.statusCode === 303) await this.get('/');
    return r;
  }
}

/** The visible text of an HTML page (tags removed, entities of the escaper decoded), for assertions. */
export const textOf = (html: string): string =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

import https from 'node:https';
import tls from 'node:tls';
import forge from 'node-forge';
import { isAfectoIva, siiDate, splitRut } from '../../dte/index.ts';
import { ProviderError, type Ambiente } from '../port.ts';
import { SII_USER_AGENT, type SiiCallObserver, type SiiCredentials, type SiiHosts, type SiiService } from './context.ts';
import { extractCaf, parseErrorPage, parseForm, parseHistory, type GrantedRange, type HtmlForm } from './caf-forms.html.ts';

/**
 * A CAF for a direct tenant through the SII's own web forms (docs/sources.md §1.6; the SII has no
 * API for it). The flow, as ruraldte recorded it live against Maullín (`engine/sii-folios.ts`):
 *
 *  1. the web login: TLS with the tenant's .pfx as the client certificate, `POST
 *     herculesr/cgi_AUT2000/CAutInicio.cgi?<ref>` with `referencia=<ref>`, redirects followed; the
 *     session is the cookies TOKEN / CSESSIONID (kept for this call only, never logged). About one
 *     login in three hits a TLS hiccup, so it is tried up to three times;
 *  2. `of_solicita_folios`, then `of_solicita_folios_dcto` with RUT_EMP, DV_EMP, ACEPTAR=Continuar;
 *  3. the same form posted again with COD_DOCTO (the page's onChange does it): the SII fills
 *     FACTOR, CON_CREDITO, CON_AJUSTE, MAX_AUTOR and FOLIOS_DISP; without it the grant is refused
 *     with ST-SEG-DTE-21-2;
 *  4. `of_confirma_folio` with CANT_DOCTOS, AFECTO_IVA, ACEPTAR="Solicitar Numeración", then up to
 *     three confirmation forms as the pages offer them (the first CAF of a type asks "Confirmar
 *     Folio Inicial"), until an answer holds the CAF's `<AUTORIZACION>`.
 *
 * More than MAX_AUTOR is refused by the SII (LIBRUD-OFSF-DTE-3-1-02); we refuse it before asking.
 *
 * Not idempotent: a grant whose answer was lost must be recovered, never asked for again. With
 * `resume`, the history of granted ranges (`of_consulta_folios` / `of_consulta2_folio`) is read
 * first; a range of the type granted since `resume.since`, of the quantity asked and not among
 * `resume.held`, is that grant, and is downloaded with `of_genera_archivo` (deterministic, uses no
 * quota). The history dates are days, so a second request of the same type and quantity on the same
 * day, in flight at the same time, could take the other's range: the tenant still gets each range
 * once (storing the second copy fails as an overlap), never a folio twice.
 */
export interface CafFormsContext {
  hosts: SiiHosts;
  /** Per HTTP attempt. */
  timeoutMs: number;
  observer?: SiiCallObserver | undefined;
  /**
   * PEM certificates trusted besides the system's (a test or emulator server certificate). The
   * SII's own hosts need none.
   */
  ca?: string | Buffer | undefined;
  /** How requests travel (default: node:https with the client certificate); tests wrap it. */
  transport?: FormTransportFactory | undefined;
}

export interface CafFormsRequest {
  rutEmpresa: string;
  tipoDte: number;
  cantidad: number;
  ambiente: Ambiente;
  resume?: { since: Date; held: { desde: number; hasta: number }[] } | undefined;
}

export interface FormRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
}

export interface FormResponse {
  status: number;
  location: string | undefined;
  setCookie: string[];
  body: Buffer;
}

/** The TLS client identity: the .pfx as given, or its key and certificate when OpenSSL cannot open it. */
export type TlsIdentity = { pfx: Buffer; passphrase: string } | { key: string; cert: string };

export type FormTransportFactory = (o: { identity: TlsIdentity; ca: (string | Buffer)[] | undefined; timeoutMs: number }) => {
  send(r: FormRequest): Promise<FormResponse>;
  close(): void;
};

const MAX_BODY = 2 * 1024 * 1024;
const LOGIN_ATTEMPTS = 3;
const MAX_REDIRECTS = 5;
const MAX_CONFIRMATIONS = 3;
const MAX_HISTORY_PAGES = 20;

/** The default transport: node:https, one keep-alive connection per call with the client certificate. */
export const httpsTransport: FormTransportFactory = ({ identity, ca, timeoutMs }) => {
  const agent = new https.Agent({ ...identity, ...(ca ? { ca } : {}), keepAlive: true, maxSockets: 1, minVersion: 'TLSv1.2' });
  const send = (r: FormRequest) =>
    new Promise<FormResponse>((resolve, reject) => {
      const headers = { ...r.headers, ...(r.body !== undefined ? { 'Content-Length': String(Buffer.byteLength(r.body)) } : {}) };
      const req = https.request(r.url, { method: r.method, headers, agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(Object.assign(new Error('answer too large'), { code: 'ETOOLARGE' }));
          else chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            setCookie: res.headers['set-cookie'] ?? [],
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      if (r.body !== undefined) req.write(r.body);
      req.end();
    });
  return { send, close: () => agent.destroy() };
};

/**
 * The .pfx as a TLS identity. OpenSSL 3 opens modern files; older exports (RC2-40) need its legacy
 * provider, so those are opened with node-forge into key and certificate. A file that opens with
 * neither is the certificate's fault: `certificate_rejected`, without the password.
 */
export function tlsIdentity(creds: Pick<SiiCredentials, 'pfx' | 'pfxPassword'>): TlsIdentity {
  try {
    tls.createSecureContext({ pfx: creds.pfx, passphrase: creds.pfxPassword });
    return { pfx: creds.pfx, passphrase: creds.pfxPassword };
  } catch {
    /* opened below */
  }
  try {
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(creds.pfx.toString('binary'))), creds.pfxPassword);
    const oids = forge.pki.oids as Record<string, string>;
    const bags = (type: string): forge.pkcs12.Bag[] => p12.getBags({ bagType: type })[type] ?? [];
    const key = [...bags(oids.pkcs8ShroudedKeyBag!), ...bags(oids.keyBag!)].find((b) => b.key)?.key as forge.pki.rsa.PrivateKey | undefined;
    const certs = bags(oids.certBag!).flatMap((b) => (b.cert ? [b.cert] : []));
    const cert = certs.find((c) => key && (c.publicKey as forge.pki.rsa.PublicKey).n?.equals(key.n)) ?? certs[0];
    if (key && cert) return { key: forge.pki.privateKeyToPem(key), cert: forge.pki.certificateToPem(cert) };
  } catch {
    /* refused below */
  }
  throw new ProviderError(
    'certificate_rejected',
    "The tenant's certificate (.pfx) could not be opened with its password for the SII's web login.",
  );
}

/** The SII's pages are ISO-8859-1. */
const text = (b: Buffer) => b.toString('latin1');

/** One session with the SII's web portal: the cookie jar and the client certificate of one call. */
class FormSession {
  private readonly jar = new Map<string, string>();
  private referer: string | undefined;
  private readonly transport: ReturnType<FormTransportFactory>;
  private readonly ctx: CafFormsContext;
  private readonly ambiente: Ambiente;
  constructor(transport: ReturnType<FormTransportFactory>, ctx: CafFormsContext, ambiente: Ambiente) {
    this.transport = transport;
    this.ctx = ctx;
    this.ambiente = ambiente;
  }

  origin(service: SiiService): string {
    return this.ctx.hosts.origin(service, this.ambiente);
  }

  has(cookie: string): boolean {
    return this.jar.has(cookie);
  }

  /** The session's secrets, to be cut out of any text that reaches a message. */
  secrets(): string[] {
    return [...this.jar.values()].filter((v) => v.length >= 4);
  }

  /**
   * One page: the request, then its redirects (GET, at most five, only to the SII's own origins:
   * the cookies never leave them). Network failures are ProviderErrors naming the operation.
   */
  async page(
    service: SiiService,
    operation: string,
    path: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; html: string }> {
    let url = path.startsWith('http') ? path : `${this.origin(service)}${path}`;
    let method: 'GET' | 'POST' = form ? 'POST' : 'GET';
    let body = form ? new URLSearchParams(form).toString() : undefined;
    const allowed = new Set([new URL(this.origin('login')).origin, new URL(this.origin('caf')).origin]);
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { 'User-Agent': SII_USER_AGENT, Accept: 'text/html,application/xml,*/*' };
      if (this.jar.size > 0) headers.Cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
      // of_genera_archivo has been seen to fail without a Referer (docs/sources.md §4.5): send it as a browser does.
      if (this.referer) headers.Referer = this.referer;
      if (body !== undefined) headers['Content-Type'] = 'application/x-www-form-urlencoded';
      let res: FormResponse;
      try {
        res = await this.transport.send({ url, method, headers, body });
      } catch (e) {
        this.ctx.observer?.call(service, operation, null);
        throw transportError(e, operation, this.ctx.timeoutMs);
      }
      this.ctx.observer?.call(service, operation, res.status);
      for (const c of res.setCookie) {
        const nv = c.split(';')[0] ?? '';
        const eq = nv.indexOf('=');
        if (eq > 0) this.jar.set(nv.slice(0, eq).trim(), nv.slice(eq + 1).trim());
      }
      this.referer = url;
      if (res.status >= 300 && res.status < 400 && res.location && hop < MAX_REDIRECTS) {
        const next = new URL(res.location, url);
        if (allowed.has(next.origin)) {
          url = next.toString();
          method = 'GET';
          body = undefined;
          continue;
        }
      }
      if (res.status >= 500) {
        throw new ProviderError(
          'unavailable',
          `The SII's CAF portal answered HTTP ${res.status} to ${operation}. Retry later.`,
          res.status,
        );
      }
      return { status: res.status, html: text(res.body) };
    }
  }
}

/** The server's TLS alerts that refuse our client certificate (OpenSSL's names, as Node reports them). */
const CLIENT_CERT_ALERT =
  /ALERT_(?:BAD_CERTIFICATE|CERTIFICATE_REQUIRED|UNKNOWN_CA|CERTIFICATE_UNKNOWN|CERTIFICATE_EXPIRED|CERTIFICATE_REVOKED|ACCESS_DENIED)/;
/** Node's codes for a server certificate it does not trust. */
const SERVER_CERT_UNTRUSTED =
  /^(?:UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/;

function transportError(e: unknown, operation: string, timeoutMs: number): ProviderError {
  if (e instanceof ProviderError) return e;
  const code = (e as { code?: string }).code;
  if (code === 'ETIMEDOUT') return new ProviderError('timeout', `The SII did not answer ${operation} within ${timeoutMs} ms.`);
  if (code && CLIENT_CERT_ALERT.test(code)) {
    return new ProviderError(
      'certificate_rejected',
      `The SII refused the tenant's certificate in the TLS handshake of ${operation} (${code}): check that it is current and issued by an accredited CA.`,
    );
  }
  if (code && SERVER_CERT_UNTRUSTED.test(code)) {
    return new ProviderError(
      'unavailable',
      `The server of ${operation} presented a certificate this service does not trust (${code}); for an emulator, trust its certificate (the adapter's extra CA).`,
    );
  }
  return new ProviderError('unavailable', `The SII's CAF portal could not be reached for ${operation}${code ? ` (${code})` : ''}.`);
}

/** A short excerpt of a page for a message, the session's cookies cut out. */
function excerpt(html: string, secrets: string[]): string {
  let t = html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  for (const s of secrets) t = t.split(s).join('***');
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

async function login(transport: ReturnType<FormTransportFactory>, ctx: CafFormsContext, ambiente: Ambiente): Promise<FormSession> {
  let last: unknown;
  for (let attempt = 0; attempt < LOGIN_ATTEMPTS; attempt++) {
    const s = new FormSession(transport, ctx, ambiente);
    const referencia = `${s.origin('caf')}/cvc_cgi/dte/of_solicita_folios`;
    try {
      await s.page('login', 'CAutInicio', `/cgi_AUT2000/CAutInicio.cgi?${referencia}`, { referencia });
    } catch (e) {
      // The login is before any grant: a network failure is simply tried again on a fresh session.
      last = e;
      continue;
    }
    if (s.has('TOKEN') || s.has('CSESSIONID')) return s;
    throw new ProviderError(
      'certificate_rejected',
      "The SII's web login did not open a session with the tenant's certificate (no TOKEN/CSESSIONID). " +
        'Check that the certificate is current, issued by an accredited CA, and that its holder may request folios for the company at the SII.',
    );
  }
  throw last instanceof ProviderError ? last : new ProviderError('unavailable', "The SII's web login could not be reached.");
}

/** The history of granted ranges of one type, every page (of_consulta2_folio; PAGINA from 1 until no new rows). */
async function history(s: FormSession, rut: { rut: string; dv: string }, tipoDte: number): Promise<GrantedRange[]> {
  await s.page('caf', 'of_consulta_folios', '/cvc_cgi/dte/of_consulta_folios');
  const seen = new Map<string, GrantedRange>();
  for (let pagina = 1; pagina <= MAX_HISTORY_PAGES; pagina++) {
    const { html } = await s.page('caf', 'of_consulta2_folio', '/cvc_cgi/dte/of_consulta2_folio', {
      RUT_EMP: rut.rut,
      DV_EMP: rut.dv,
      COD_DOCTO: String(tipoDte),
      PAGINA: String(pagina),
      ACEPTAR: 'Consultar',
    });
    const page = parseHistory(html);
    if (!page.enabled) return [];
    let added = 0;
    for (const r of page.ranges) {
      const k = `${r.fecha}|${r.desde}|${r.hasta}`;
      if (!seen.has(k)) {
        seen.set(k, r);
        added++;
      }
    }
    if (added === 0) break;
  }
  return [...seen.values()];
}

/** The grant whose answer was lost: granted since `since`, of the quantity asked, not held by the tenant. */
export function lostGrant(
  ranges: GrantedRange[],
  req: { cantidad: number; resume: NonNullable<CafFormsRequest['resume']> },
): GrantedRange | undefined {
  const day = siiDate(req.resume.since);
  const held = req.resume.held;
  return ranges
    .filter((r) => r.fecha >= day && r.hasta - r.desde + 1 === req.cantidad)
    .filter((r) => !held.some((h) => h.desde <= r.hasta && h.hasta >= r.desde))
    .sort((a, b) => b.desde - a.desde)[0];
}

/** Downloads a granted range's CAF again (of_genera_archivo: deterministic, uses no quota). */
async function download(s: FormSession, rut: { rut: string; dv: string }, tipoDte: number, r: GrantedRange): Promise<Buffer> {
  const { html } = await s.page('caf', 'of_genera_archivo', '/cvc_cgi/dte/of_genera_archivo', {
    RUT_EMP: rut.rut,
    DV_EMP: rut.dv,
    COD_DOCTO: String(tipoDte),
    FOLIO_INI: String(r.desde),
    FOLIO_FIN: String(r.hasta),
    FECHA: r.fecha,
    ACEPTAR: 'AQUI',
  });
  const caf = extractCaf(html);
  if (!caf) {
    throw new ProviderError(
      'unavailable',
      `The SII granted folios ${r.desde}–${r.hasta} of type ${tipoDte} on ${r.fecha} but did not hand over their CAF again (of_genera_archivo: ${excerpt(html, s.secrets())}). ` +
        'Retry later, or download it from the SII (Reobtención de Folios) and upload it with POST /api/v1/tenants/{tenantId}/folios/caf.',
    );
  }
  return Buffer.from(caf, 'latin1');
}

const maxAutorMessage = (tipoDte: number, cantidad: number, max: number) =>
  `The SII allows this company at most ${max} folios of type ${tipoDte} per request now (MAX_AUTOR ${max}; ` +
  `asking for more is refused with LIBRUD-OFSF-DTE-3-1-02), and ${cantidad} were asked for. ` +
  `Ask for at most ${max}; the SII raises the limit as the company issues documents.`;

/** The fields the SII fills once the type is chosen; without them the grant fails with ST-SEG-DTE-21-2. */
const TYPE_FIELDS = ['FACTOR', 'CON_CREDITO', 'CON_AJUSTE', 'MAX_AUTOR', 'FOLIOS_DISP'] as const;

/**
 * Whether the type is afecto a IVA, when the page leaves AFECTO_IVA to its script: ruraldte sets N
 * for the boleta exenta and S otherwise; the factura exenta as N is our reading of the same rule
 * (the catalogue's `afectoIva`, src/dte/catalogue.ts).
 */
const afectoIva = (tipoDte: number) => (isAfectoIva(tipoDte) ? 'S' : 'N');

function refusal(html: string, s: FormSession, what: string): ProviderError | undefined {
  const err = parseErrorPage(html);
  if (!err) return undefined;
  return new ProviderError('rejected', `The SII refused ${what}${err.code ? ` (${err.code})` : ''}: ${excerpt(err.text, s.secrets())}`);
}

export async function requestCafViaForms(ctx: CafFormsContext, creds: SiiCredentials, req: CafFormsRequest): Promise<{ cafXml: Buffer }> {
  if (!Number.isSafeInteger(req.cantidad) || req.cantidad < 1) {
    throw new ProviderError('rejected', `The number of folios to request must be a positive integer, got ${req.cantidad}.`);
  }
  if (!ctx.transport && ['login', 'caf'].some((svc) => ctx.hosts.origin(svc as 'login' | 'caf', req.ambiente).startsWith('http:'))) {
    // The login presents the certificate in the TLS handshake: there is none over plain HTTP.
    throw new ProviderError(
      'unavailable',
      "The SII's CAF forms need HTTPS (the certificate is presented in the TLS handshake), but SII_BASE_URL is http://: " +
        'start the emulator with --tls and trust its certificate (NODE_EXTRA_CA_CERTS), or upload the CAF with POST /api/v1/tenants/{tenantId}/folios/caf.',
    );
  }
  const identity = tlsIdentity(creds);
  const ca = ctx.ca ? [...tls.rootCertificates, typeof ctx.ca === 'string' ? ctx.ca : ctx.ca.toString('utf8')] : undefined;
  const transport = (ctx.transport ?? httpsTransport)({ identity, ca, timeoutMs: ctx.timeoutMs });
  try {
    const s = await login(transport, ctx, req.ambiente);
    const rut = splitRut(req.rutEmpresa);

    if (req.resume) {
      const found = lostGrant(await history(s, rut, req.tipoDte), { cantidad: req.cantidad, resume: req.resume });
      if (found) return { cafXml: await download(s, rut, req.tipoDte, found) };
    }

    await s.page('caf', 'of_solicita_folios', '/cvc_cgi/dte/of_solicita_folios');
    const first = await s.page('caf', 'of_solicita_folios_dcto', '/cvc_cgi/dte/of_solicita_folios_dcto', {
      RUT_EMP: rut.rut,
      DV_EMP: rut.dv,
      ACEPTAR: 'Continuar',
    });
    const what = `the folio request for company ${req.rutEmpresa}`;
    const form0 = parseForm(first.html);
    if (!form0?.action) {
      throw (
        refusal(first.html, s, what) ??
        new ProviderError(
          'rejected',
          `The SII offered no folio request form for company ${req.rutEmpresa}: the certificate's holder may lack the profile to request folios for it ("Solicitar Folios"), or the company is not an authorised electronic issuer.`,
        )
      );
    }
    const types = form0.options.COD_DOCTO;
    if (types && types.length > 0 && !types.includes(String(req.tipoDte))) {
      throw new ProviderError(
        'rejected',
        `The SII does not let company ${req.rutEmpresa} request folios of type ${req.tipoDte} (it offers ${types.join(', ')}): the company must be authorised for that document type.`,
      );
    }
    // Step 3: the form again with the type chosen, as the page's onChange does (a script's submit sends no button).
    const reloadFields: Record<string, string> = { ...form0.fields, RUT_EMP: rut.rut, DV_EMP: rut.dv, COD_DOCTO: String(req.tipoDte) };
    delete reloadFields.ACEPTAR;
    const reload = await s.page('caf', 'of_solicita_folios_dcto', '/cvc_cgi/dte/of_solicita_folios_dcto', reloadFields);
    const form: HtmlForm | undefined = parseForm(reload.html);
    if (!form?.action)
      throw (
        refusal(reload.html, s, what) ?? new ProviderError('unavailable', `The SII's folio form for type ${req.tipoDte} could not be read.`)
      );
    const missing = TYPE_FIELDS.filter((f) => !(f in form.fields));
    if (missing.length === TYPE_FIELDS.length) {
      throw new ProviderError(
        'unavailable',
        `The SII's folio form for type ${req.tipoDte} lacks its limits (${missing.join(', ')}); retry later.`,
      );
    }
    const max = Number((form.fields.MAX_AUTOR ?? '').trim());
    if ((form.fields.MAX_AUTOR ?? '').trim() !== '' && Number.isSafeInteger(max) && req.cantidad > max) {
      throw new ProviderError('rejected', maxAutorMessage(req.tipoDte, req.cantidad, max));
    }

    // Step 4: the request. From here a post may grant folios: a failure is never "nothing happened".
    let page = await s
      .page('caf', 'of_confirma_folio', form.action, {
        ...form.fields,
        RUT_EMP: rut.rut,
        DV_EMP: rut.dv,
        COD_DOCTO: String(req.tipoDte),
        CANT_DOCTOS: String(req.cantidad),
        AFECTO_IVA: form.fields.AFECTO_IVA?.trim() || afectoIva(req.tipoDte),
        ACEPTAR: 'Solicitar Numeración',
      })
      .catch((e: unknown) => {
        throw maybeGranted(e);
      });
    for (let i = 0; ; i++) {
      const caf = extractCaf(page.html);
      if (caf) return { cafXml: Buffer.from(caf, 'latin1') };
      const err = parseErrorPage(page.html);
      if (err) {
        if (err.code === 'LIBRUD-OFSF-DTE-3-1-02') {
          throw new ProviderError(
            'rejected',
            Number.isSafeInteger(max) && (form.fields.MAX_AUTOR ?? '').trim() !== ''
              ? maxAutorMessage(req.tipoDte, req.cantidad, max)
              : `The SII refused ${req.cantidad} folios of type ${req.tipoDte} (LIBRUD-OFSF-DTE-3-1-02: more than the company's MAX_AUTOR, its per-request limit). Ask for fewer; the SII raises the limit as the company issues documents.`,
          );
        }
        throw refusal(page.html, s, what)!;
      }
      const next = parseForm(page.html);
      if (!next?.action || i >= MAX_CONFIRMATIONS) {
        throw new ProviderError(
          'unavailable',
          `The SII's answer to the folio request holds no CAF (${excerpt(page.html, s.secrets())}); the folios may have been granted. ` +
            'A retry of this request looks in the SII history of granted ranges and downloads them instead of asking again.',
        );
      }
      const label = next.action.split('?')[0]!.split('/').pop() || 'confirmation';
      page = await s.page('caf', label, next.action, next.fields).catch((e: unknown) => {
        throw maybeGranted(e);
      });
    }
  } finally {
    transport.close();
  }
}

/** A failure once the request was posted: the grant may have happened, so only a retry with `resume` is safe. */
function maybeGranted(e: unknown): ProviderError {
  const base = e instanceof ProviderError ? e : new ProviderError('unavailable', 'The SII could not be reached.');
  return new ProviderError(
    base.kind === 'timeout' ? 'timeout' : 'unavailable',
    `${base.message} The answer to the folio request was lost after it was sent, so the SII may have granted the folios; ` +
      'a retry of this request looks in the SII history of granted ranges and downloads them instead of asking again.',
    base.status,
  );
}

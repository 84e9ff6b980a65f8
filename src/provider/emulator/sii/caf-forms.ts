import crypto from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { rutFromCertificate, tryParseRut, toSiiRut } from '../../../dte/index.ts';
import { CAF_TYPES, type EmulatorCore } from '../emulator.ts';
import { emulatorStore } from '../store.ts';
import { escapeXml } from '../../sii/http.ts';
import { DOCUMENT_NAMES } from '../texts.ts';
import { createServerCertificate, httpsServerFactory, type ServerCertificate } from '../tls.ts';

/**
 * The SII's CAF web forms (docs/sources.md §1.6; docs/emulator.md, "The SII's CAF forms"): the web
 * login with the certificate over mTLS (`/cgi_AUT2000/CAutInicio.cgi`) and the timbraje portal
 * (`/cvc_cgi/dte/…`): the request (of_solicita_folios → of_solicita_folios_dcto → of_confirma_folio
 * → of_genera_folio, which grants), the download of a granted CAF (of_genera_archivo) and the
 * history (of_consulta_folios, of_consulta2_folio). CAFs are granted by the core (grantCaf), the
 * same as the SimpleAPI face's. The field names, codes and flow are the sources'; the SII's exact
 * markup is not in them, so the pages are plain forms with those names.
 *
 * The login reads the client certificate from the TLS socket, so it works on an HTTPS server
 * (tls.ts): the standalone emulator with --tls, or the in-process emulator's listener
 * (startCafFormsListener). Without a certificate (plain HTTP, or none offered) it refuses.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The SII service an emulator SII route is counted under (stats.ts `sii`). */
    siiOperation?: string;
  }
}

/**
 * MAX_AUTOR, the most folios of a type one request may ask for: "A un emisor nuevo le da
 * poquísimos, y el tope sube después" (ruraldte docs/COMO_CONTROLA_EL_SII.md; a live page showed
 * 4 for type 61). The SII's formula is not published: ours is 20 for a company that has issued
 * nothing of the type, plus one per document of the type the SII received from it.
 */
export const NEW_ISSUER_MAX_AUTOR = 20;
/** Rows per page of the history (of_consulta2_folio): not in the sources, ours. */
export const HISTORY_PAGE_SIZE = 10;
/** How long a web session lasts without use: not in the sources, ours. */
export const SESSION_TTL_MS = 30 * 60_000;
const MAX_SESSIONS = 1000;

export const CAF_FORM_CODES = {
  /** More than MAX_AUTOR (ruraldte, recorded page). */
  overLimit: 'LIBRUD-OFSF-DTE-3-1-02',
  /** The grant without the fields the type's reload fills (ruraldte, seen live). */
  typeFieldsMissing: 'ST-SEG-DTE-21-2',
} as const;

interface WebSession {
  /** The certificate holder's RUT and name, as the login read them. */
  rut: string;
  name: string;
  lastUse: number;
}

const HTML_TYPE = 'text/html; charset=ISO-8859-1';

/** Spanish text as an ISO-8859-1 page writes it: accents as entities, so the bytes stay ASCII. */
const html = (s: string) => escapeXml(s).replace(/[^\x20-\x7e]/g, (c) => `&#${c.codePointAt(0)};`);

function page(title: string, body: string): Buffer {
  return Buffer.from(
    `<HTML><HEAD><TITLE>${html(title)}</TITLE></HEAD><BODY>\n<H3>${html(title)}</H3>\n${body}\n</BODY></HTML>\n`,
    'latin1',
  );
}

/** The SII's error page: "No ha sido posible completar su solicitud…" and a code [ruraldte, recorded page]. */
function errorPage(code: string | null, extra = ''): Buffer {
  return page(
    'Timbraje Electrónico',
    `<font class="texto">No ha sido posible completar su solicitud.  Int&eacute;ntelo m&aacute;s tarde y si el problema persiste, ` +
      `comun&iacute;quese con la Mesa de ayuda${code ? `, informando el siguiente c&oacute;digo <b>${code}</b>` : ''}.</font>` +
      (extra ? `\n<P>${html(extra)}</P>` : ''),
  );
}

const hidden = (name: string, value: string | number) => `<INPUT TYPE=hidden NAME="${name}" VALUE="${html(String(value))}">`;
const readonly = (name: string, value: string | number) =>
  `<INPUT NAME="${name}" readonly="readonly" value = "${html(String(value))}" TYPE=Text SIZE=8>`;
const submit = (value: string) => `<INPUT NAME="ACEPTAR" TYPE=SUBMIT VALUE="${html(value)}">`;

function typeSelect(selected: number | undefined, onChange: boolean): string {
  const opts = [...CAF_TYPES]
    .map((t) => `  <option value="${t}"${t === selected ? ' selected' : ''}>${html(DOCUMENT_NAMES[t] ?? 'DOCUMENTO')} (COD. ${t})</option>`)
    .join('\n');
  return `<SELECT name = COD_DOCTO${onChange ? ` onChange ="changeRegregion('/cvc_cgi/dte/');"` : ''}>\n${opts}\n</SELECT>`;
}

/** The form fields of a call: the query and an urlencoded body (UTF-8, as browsers and URLSearchParams send it). */
function fieldsOf(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const q = req.url.indexOf('?');
  if (q >= 0) for (const [k, v] of new URLSearchParams(req.url.slice(q + 1))) out[k] = v;
  if (typeof req.body === 'string') for (const [k, v] of new URLSearchParams(req.body)) out[k] = v;
  return out;
}

const cookieOf = (req: FastifyRequest, name: string): string | undefined => {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
};

const intField = (v: string | undefined): number => (v !== undefined && /^\s*\d{1,9}\s*$/.test(v) ? Number(v) : NaN);

/** `RUT_EMP` + `DV_EMP` as the SII's form of a RUT, or undefined when they do not make one. */
function companyRut(f: Record<string, string>): string | undefined {
  const r = `${(f.RUT_EMP ?? '').trim()}-${(f.DV_EMP ?? '').trim()}`;
  return tryParseRut(r) ? toSiiRut(r) : undefined;
}

/** DD-MM-YYYY (the history's) or YYYY-MM-DD → YYYY-MM-DD. */
function isoDate(s: string | undefined): string | undefined {
  const t = (s ?? '').trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return t;
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(t);
  return m ? `${m[3]}-${m[2]}-${m[1]}` : undefined;
}
const chileDate = (iso: string) => `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;

export async function registerSiiCafForms(app: FastifyInstance, core: EmulatorCore): Promise<void> {
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  }
  const sessions = new Map<string, WebSession>();
  const send = (reply: FastifyReply, body: Buffer, status = 200) => reply.status(status).type(HTML_TYPE).send(body);

  /** The caller's web session, or undefined (the page then asks to log in again; its text is ours). */
  const sessionOf = (req: FastifyRequest): WebSession | undefined => {
    const token = cookieOf(req, 'TOKEN');
    const s = token ? sessions.get(token) : undefined;
    const now = Date.now();
    if (!s || now - s.lastUse > SESSION_TTL_MS) return undefined;
    s.lastUse = now;
    return s;
  };
  const noSession = (reply: FastifyReply) =>
    send(reply, page('Autenticación', 'Su sesión no es válida o ha expirado. Ingrese nuevamente con su certificado digital.'));

  /** What the SII shows once the type is chosen: MAX_AUTOR (our rule above) and FOLIOS_DISP (granted, not yet received). */
  const limits = async (rut: string, tipoDte: number) => {
    await core.ready();
    const received = await emulatorStore.documentsReceived(core.db, rut, tipoDte);
    const granted = (await emulatorStore.cafHistory(core.db, rut, tipoDte)).reduce((n, r) => n + r.hasta - r.desde + 1, 0);
    return { maxAutor: NEW_ISSUER_MAX_AUTOR + received, foliosDisp: Math.max(0, granted - received), first: granted === 0 };
  };

  type Handler = (req: FastifyRequest, reply: FastifyReply, s: WebSession, f: Record<string, string>) => Promise<unknown>;
  const portal = (name: string, methods: ('GET' | 'POST')[], handler: Handler) =>
    app.route({
      method: methods,
      url: `/cvc_cgi/dte/${name}`,
      config: { siiOperation: name },
      handler: async (req, reply) => {
        const s = sessionOf(req);
        if (!s) return noSession(reply);
        return handler(req, reply, s, fieldsOf(req));
      },
    });

  // The web login [docs/sources.md §1.1, §1.6]: the certificate from the TLS handshake; cookies TOKEN
  // and CSESSIONID; a redirect back to `referencia`. Its pages' text is ours.
  app.route({
    method: ['GET', 'POST'],
    url: '/cgi_AUT2000/CAutInicio.cgi',
    config: { siiOperation: 'CAutInicio' },
    handler: async (req, reply) => {
      const sock = req.raw.socket as Partial<TLSSocket>;
      const peer = typeof sock.getPeerCertificate === 'function' ? sock.getPeerCertificate(false) : undefined;
      const raw = peer && 'raw' in peer ? peer.raw : undefined;
      const refuse = (why: string) => send(reply, page('Autenticación', `No fue posible autenticarlo con certificado digital: ${why}`));
      if (!peer || !raw) return refuse('no se presentó un certificado digital.');
      let rut: string | null = null;
      try {
        rut = rutFromCertificate(raw);
      } catch {
        rut = null;
      }
      if (!rut) return refuse('el certificado no indica el RUT de su titular.');
      const now = core.clock.now();
      if (now < new Date(peer.valid_from) || now > new Date(peer.valid_to)) return refuse('el certificado no está vigente.');
      const cn = peer.subject?.CN;
      const name = Array.isArray(cn) ? (cn[0] ?? '') : (cn ?? '');
      if (sessions.size >= MAX_SESSIONS) {
        const oldest = [...sessions].sort((a, b) => a[1].lastUse - b[1].lastUse)[0];
        if (oldest) sessions.delete(oldest[0]);
      }
      const token = crypto.randomBytes(16).toString('hex').toUpperCase();
      sessions.set(token, { rut, name, lastUse: Date.now() });
      const f = fieldsOf(req);
      const q = req.url.indexOf('?');
      let back = '/cvc_cgi/dte/of_solicita_folios';
      try {
        const ref = f.referencia ?? (q >= 0 ? decodeURIComponent(req.url.slice(q + 1)) : '');
        const u = new URL(ref, 'https://emulator.invalid');
        if (u.pathname.startsWith('/cvc_cgi/')) back = u.pathname + u.search;
      } catch {
        /* the default */
      }
      reply.header('Set-Cookie', [
        `TOKEN=${token}; Path=/; Secure; HttpOnly`,
        `CSESSIONID=${crypto.randomBytes(12).toString('hex')}; Path=/; Secure; HttpOnly`,
      ]);
      return reply.status(302).header('Location', back).type(HTML_TYPE).send(Buffer.alloc(0));
    },
  });

  // 1. The company's RUT.
  portal('of_solicita_folios', ['GET', 'POST'], async (_req, reply) =>
    send(
      reply,
      page(
        'Solicitud de Timbraje Electrónico de Documentos',
        `<FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_solicita_folios_dcto">\n` +
          `RUT Empresa: <INPUT NAME="RUT_EMP" TYPE=Text SIZE=8 MAXLENGTH=8> - <INPUT NAME="DV_EMP" TYPE=Text SIZE=1 MAXLENGTH=1>\n` +
          `${submit('Continuar')}\n</FORM>`,
      ),
    ),
  );

  // 2 and 3. The type and quantity; with COD_DOCTO (the onChange reload) the type's fields are filled.
  portal('of_solicita_folios_dcto', ['POST'], async (_req, reply, _s, f) => {
    const rut = companyRut(f);
    if (!rut) return send(reply, errorPage(null, 'RUT de empresa inválido.'));
    const tipo = intField(f.COD_DOCTO);
    const chosen = CAF_TYPES.has(tipo) ? tipo : undefined;
    const l = chosen !== undefined ? await limits(rut, chosen) : undefined;
    const [num, dv] = rut.split('-') as [string, string];
    const typeFields = l
      ? [
          hidden('FACTOR', 1),
          hidden('CON_CREDITO', 0),
          hidden('CON_AJUSTE', 0),
          hidden('AFECTO_IVA', chosen === 34 || chosen === 41 ? 'N' : 'S'),
        ].join('\n')
      : [hidden('FACTOR', ''), hidden('CON_CREDITO', ''), hidden('CON_AJUSTE', ''), hidden('AFECTO_IVA', '')].join('\n');
    return send(
      reply,
      page(
        'Solicitud de Timbraje Electrónico de Documentos',
        `<FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_confirma_folio">\n` +
          `${readonly('RUT_EMP', num)}\n${readonly('DV_EMP', dv)}\n${typeSelect(chosen, true)}\n${typeFields}\n` +
          `Máximo autorizado: ${readonly('MAX_AUTOR', l?.maxAutor ?? '')}\n` +
          `<font class="texto"><b>Ingrese N&deg; de Folios a Timbrar</b></font>\n<input name="CANT_DOCTOS" type=text size=8 maxlength=8>\n` +
          `${submit('Solicitar Numeración')}\n` +
          `Folios disponibles: ${readonly('FOLIOS_DISP', l?.foliosDisp ?? '')}\n</FORM>`,
      ),
    );
  });

  /** The checks of a request and its confirmation; an error page, or what to grant. */
  const checkRequest = async (f: Record<string, string>) => {
    const rut = companyRut(f);
    const tipo = intField(f.COD_DOCTO);
    const cantidad = intField(f.CANT_DOCTOS);
    if (!rut) return { error: errorPage(null, 'RUT de empresa inválido.') } as const;
    if (!CAF_TYPES.has(tipo)) return { error: errorPage(null, 'Tipo de documento inválido.') } as const;
    if (!Number.isSafeInteger(cantidad) || cantidad < 1) return { error: errorPage(null, 'Cantidad de folios inválida.') } as const;
    const l = await limits(rut, tipo);
    if (cantidad > l.maxAutor) return { error: errorPage(CAF_FORM_CODES.overLimit) } as const;
    return { rut, tipo, cantidad, first: l.first } as const;
  };

  const confirmationPage = (
    f: Record<string, string>,
    r: { rut: string; tipo: number; cantidad: number; first: boolean },
    next: number,
  ) => {
    const [num, dv] = r.rut.split('-') as [string, string];
    const carried = ['FACTOR', 'CON_CREDITO', 'CON_AJUSTE', 'AFECTO_IVA'].map((k) => hidden(k, f[k] ?? '')).join('\n');
    return page(
      'Confirmación de Solicitud de Folios',
      `Se solicitan ${r.cantidad} folios de ${html(DOCUMENT_NAMES[r.tipo] ?? '')} para la empresa ${num}-${dv}.\n` +
        `<FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_genera_folio">\n` +
        `${hidden('RUT_EMP', num)}\n${hidden('DV_EMP', dv)}\n${hidden('COD_DOCTO', r.tipo)}\n${hidden('CANT_DOCTOS', r.cantidad)}\n${carried}\n` +
        // The first CAF of a type confirms its first folio [ruraldte: value=1, unquoted].
        (r.first
          ? `<INPUT NAME="FOLIO_INICIAL" TYPE=Text value=1 SIZE=8>\n${submit('Confirmar Folio Inicial')}`
          : `${hidden('FOLIO_INICIAL', next)}\n${submit('Obtener Folios')}`) +
        '\n</FORM>',
    );
  };

  // 4. The request: its checks, then a confirmation form.
  portal('of_confirma_folio', ['POST'], async (_req, reply, _s, f) => {
    const r = await checkRequest(f);
    if ('error' in r) return send(reply, r.error!);
    const next = (await emulatorStore.cafHistory(core.db, r.rut, r.tipo)).reduce((m, c) => Math.max(m, c.hasta), 0) + 1;
    return send(reply, confirmationPage(f, r, next));
  });

  // 5. The grant (not idempotent: each post that passes grants), then the comprobante with the download form.
  portal('of_genera_folio', ['POST'], async (_req, reply, s, f) => {
    if (!['FACTOR', 'CON_CREDITO', 'CON_AJUSTE'].every((k) => (f[k] ?? '').trim() !== '')) {
      return send(reply, errorPage(CAF_FORM_CODES.typeFieldsMissing));
    }
    const r = await checkRequest(f);
    if ('error' in r) return send(reply, r.error!);
    // The first CAF of a type is granted only with its confirmation; without it the page comes back [ruraldte].
    if (r.first && f.ACEPTAR !== 'Confirmar Folio Inicial') return send(reply, confirmationPage(f, r, 1));
    const { caf } = await core.grantCaf(r.rut, r.tipo, r.cantidad, s.name || s.rut);
    const [num, dv] = r.rut.split('-') as [string, string];
    return send(
      reply,
      page(
        'Comprobante de Solicitud de Folios',
        `<TABLE><TR><TD>Empresa</TD><TD>${num}-${dv}</TD></TR><TR><TD>Documento</TD><TD>${html(DOCUMENT_NAMES[r.tipo] ?? '')}</TD></TR>` +
          `<TR><TD>Desde</TD><TD>${caf.desde}</TD></TR><TR><TD>Hasta</TD><TD>${caf.hasta}</TD></TR>` +
          `<TR><TD>Fecha</TD><TD>${chileDate(caf.fechaAutorizacion)}</TD></TR></TABLE>\n` +
          'Para obtener el archivo de autorización presione\n' +
          `<FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_genera_archivo">\n` +
          `${hidden('RUT_EMP', num)}\n${hidden('DV_EMP', dv)}\n${hidden('COD_DOCTO', r.tipo)}\n${hidden('FOLIO_INI', caf.desde)}\n` +
          `${hidden('FOLIO_FIN', caf.hasta)}\n${hidden('FECHA', caf.fechaAutorizacion)}\n${submit('AQUI')}\n</FORM>`,
      ),
    );
  });

  // The CAF of a granted range, as issued (deterministic; grants nothing) [ruraldte].
  portal('of_genera_archivo', ['POST'], async (_req, reply, _s, f) => {
    const rut = companyRut(f);
    const tipo = intField(f.COD_DOCTO);
    const desde = intField(f.FOLIO_INI);
    const hasta = intField(f.FOLIO_FIN);
    const fecha = isoDate(f.FECHA);
    await core.ready();
    const file =
      rut && fecha && Number.isSafeInteger(tipo) && Number.isSafeInteger(desde) && Number.isSafeInteger(hasta)
        ? await emulatorStore.cafFile(core.db, { rut, tipoDte: tipo, desde, hasta, fecha })
        : undefined;
    if (!file) return send(reply, errorPage(null, 'No existe un timbraje con esos datos.'));
    return reply
      .status(200)
      .type('text/xml; charset=ISO-8859-1')
      .header('Content-Disposition', `attachment; filename="FoliosSII${rut!.split('-')[0]}${tipo}${desde}${fecha!.replace(/-/g, '')}.xml"`)
      .send(file);
  });

  // The history of granted ranges: a form, then pages of rows date, quantity, from, to, who [ruraldte].
  portal('of_consulta_folios', ['GET', 'POST'], async (_req, reply) =>
    send(
      reply,
      page(
        'Información de Timbrajes Históricos',
        `<FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_consulta2_folio">\n` +
          `<INPUT NAME="RUT_EMP" TYPE=Text SIZE=8> - <INPUT NAME="DV_EMP" TYPE=Text SIZE=1>\n${typeSelect(undefined, false)}\n` +
          `${hidden('PAGINA', 1)}\n${submit('Consultar')}\n</FORM>`,
      ),
    ),
  );

  portal('of_consulta2_folio', ['POST'], async (_req, reply, _s, f) => {
    const rut = companyRut(f);
    const tipo = intField(f.COD_DOCTO);
    if (!rut) return send(reply, errorPage(null, 'RUT de empresa inválido.'));
    const name = DOCUMENT_NAMES[tipo];
    if (!CAF_TYPES.has(tipo) || !name) {
      return send(
        reply,
        page('Información de Timbrajes Históricos', `La empresa no tiene habilitado el documento COD. ${f.COD_DOCTO ?? ''} para timbrar.`),
      );
    }
    await core.ready();
    const all = await emulatorStore.cafHistory(core.db, rut, tipo);
    if (all.length === 0)
      return send(reply, page('Información de Timbrajes Históricos', `Timbrajes para ${html(name)}: No registra timbrajes.`));
    const pagina = Math.max(1, intField(f.PAGINA) || 1);
    const rows = all.slice((pagina - 1) * HISTORY_PAGE_SIZE, pagina * HISTORY_PAGE_SIZE);
    const body =
      `Timbrajes para ${html(name)}:\n<TABLE>\n<TR><TH>Fecha</TH><TH>Cantidad</TH><TH>Folio Inicial</TH><TH>Folio Final</TH><TH>Solicitante</TH></TR>\n` +
      rows
        .map(
          (r) =>
            `<TR><TD>${chileDate(r.fecha_autorizacion)}</TD><TD>${r.hasta - r.desde + 1}</TD><TD>${r.desde}</TD><TD>${r.hasta}</TD><TD>${html(r.granted_by ?? '')}</TD></TR>`,
        )
        .join('\n') +
      '\n</TABLE>';
    return send(reply, page('Información de Timbrajes Históricos', body));
  });
}

/**
 * The CAF forms on a local HTTPS listener (127.0.0.1, a free port, a new self-signed certificate):
 * for the in-process emulator, whose other routes are reached without a socket (Fastify inject,
 * which has no TLS). `ca` is the server certificate a client must trust.
 */
export async function startCafFormsListener(
  core: EmulatorCore,
  cert: ServerCertificate = createServerCertificate(),
): Promise<{ origin: string; ca: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, serverFactory: httpsServerFactory(cert) });
  await registerSiiCafForms(app, core);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { origin: `https://127.0.0.1:${port}`, ca: cert.certPem, close: () => app.close() };
}

import type { DocumentOutcome, Provider, ProviderCredentials, UploadStatus } from '../port.ts';
import { ProviderError } from '../port.ts';
import { createSimpleApiClient, excerpt, type FilePart, type SimpleApiClientOptions } from './client.ts';
import {
  ambienteCode,
  FINAL_ENVELOPE_STATES,
  ROUTES,
  type DteStatusResponse,
  type EnvioResponse,
  type EnvioStatusResponse,
  type TaxpayerResponse,
} from './protocol.ts';

/**
 * The `simpleapi` adapter: the Provider port over SimpleAPI's HTTP API (protocol.ts). SimpleAPI
 * stores nothing, so every call carries the tenant's .pfx, its password and the holder's RUT;
 * they arrive decrypted in `creds` for this one call and are never kept here.
 */
export function createSimpleApiProvider(opts: SimpleApiClientOptions): Provider {
  const client = createSimpleApiClient(opts);

  const cert = (creds: ProviderCredentials) => {
    if (!creds.pfx || creds.pfxPassword === undefined || !creds.rutCertificado) {
      throw new Error('SimpleAPI calls need the tenant certificate (pfx, pfxPassword, rutCertificado)');
    }
    return { pfx: creds.pfx, password: creds.pfxPassword, rut: creds.rutCertificado };
  };
  const pfxPart = (pfx: Buffer): FilePart => ({ name: 'certificado.pfx', data: pfx, type: 'application/x-pkcs12' });

  const json = <T>(body: Buffer, what: string, secrets: string[]): T => {
    try {
      return JSON.parse(body.toString('utf8')) as T;
    } catch {
      throw new ProviderError(
        'unavailable',
        `The billing provider answered ${what} with something that is not JSON: ${excerpt(body, secrets)}`,
      );
    }
  };

  const post = async (
    creds: ProviderCredentials,
    host: 'api' | 'servicios',
    path: string,
    input: unknown,
    idempotent: boolean,
    extra: FilePart[] = [],
  ) => {
    const c = cert(creds);
    return client.request({
      host,
      method: 'POST',
      path,
      apiKey: creds.apiKey,
      input,
      files: [pfxPart(c.pfx), ...extra],
      idempotent,
      secrets: [c.password],
    });
  };

  const certificado = (creds: ProviderCredentials) => {
    const c = cert(creds);
    return { Rut: c.rut, Password: c.password };
  };

  return {
    name: 'simpleapi',

    async verifyApiKey(apiKey) {
      const r = await client.request({ host: 'api', method: 'GET', path: ROUTES.subscription, apiKey, idempotent: true });
      const items = json<unknown>(r.body, 'the subscription status', [apiKey]);
      if (!Array.isArray(items))
        throw new ProviderError('unavailable', 'The billing provider answered the subscription status in an unknown shape.');
      return {
        quota: items.map((i: { servicio?: unknown; uso?: unknown; maximo?: unknown }) => ({
          servicio: String(i.servicio ?? ''),
          uso: Number(i.uso ?? 0),
          maximo: Number(i.maximo ?? 0),
        })),
      };
    },

    async taxpayerLookup(creds, rut) {
      const r = await post(creds, 'api', ROUTES.taxpayer, { Certificado: certificado(creds), RutEmpresa: rut, Ambiente: 1 }, true);
      const t = json<TaxpayerResponse>(r.body, 'the taxpayer lookup', [creds.pfxPassword ?? '']);
      return {
        rut: t.rut,
        razonSocial: t.razonSocial,
        acteco: (t.actividades ?? []).map((a) => Number(a.codigo)).filter(Number.isInteger),
      };
    },

    async requestCaf(creds, req) {
      const c = cert(creds);
      const input = { RutCertificado: c.rut, Password: c.password, RutEmpresa: req.rutEmpresa, Ambiente: ambienteCode(req.ambiente) };
      const r = await post(creds, 'servicios', ROUTES.folios(req.tipoDte, req.cantidad), input, false);
      if (!/<AUTORIZACION[\s>]/.test(r.body.toString('latin1'))) {
        throw new ProviderError('rejected', `The billing provider did not return a CAF: ${excerpt(r.body, [c.password])}`);
      }
      return { cafXml: r.body };
    },

    async upload(creds, req) {
      const input = { Certificado: certificado(creds), Ambiente: ambienteCode(req.ambiente), Tipo: req.tipo === 'boleta' ? 2 : 1 };
      const file: FilePart = { name: req.tipo === 'boleta' ? 'envio-boleta.xml' : 'envio-dte.xml', data: req.envelope, type: 'text/xml' };
      const r = await post(creds, 'api', ROUTES.send, input, false, [file]);
      const a = json<EnvioResponse>(r.body, 'the upload', [creds.pfxPassword ?? '']);
      if (!a.ok || !a.trackId) {
        const detail = [a.glosa, ...(a.errores ?? [])].filter(Boolean).join('; ');
        throw new ProviderError('rejected', `The SII did not accept the upload (${a.estado || 'sin estado'}): ${detail || 'sin detalle'}`);
      }
      return { trackId: String(a.trackId), estado: a.estado, glosa: a.glosa, raw: r.body };
    },

    async uploadStatus(creds, req) {
      const input = {
        Certificado: certificado(creds),
        RutEmpresa: req.rutEmpresa,
        TrackId: req.trackId,
        Ambiente: ambienteCode(req.ambiente),
        ServidorBoletaREST: req.tipo === 'boleta',
      };
      const r = await post(creds, 'api', ROUTES.envioStatus, input, true);
      return parseEnvioStatus(json<EnvioStatusResponse>(r.body, 'the upload status', [creds.pfxPassword ?? '']), req.trackId, r.body);
    },

    async documentStatus(creds, req) {
      const input = {
        Certificado: certificado(creds),
        RutEmpresa: req.rutEmpresa,
        RutReceptor: req.rutReceptor,
        Tipo: req.tipoDte,
        Folio: req.folio,
        FechaDte: req.fechaEmision,
        Total: req.montoTotal,
        Ambiente: ambienteCode(req.ambiente),
      };
      const r = await post(creds, 'api', ROUTES.dteStatus, input, true);
      const a = json<DteStatusResponse>(r.body, 'the document status', [creds.pfxPassword ?? '']);
      return { estado: String(a.estado ?? ''), glosa: String(a.glosa ?? '') };
    },

    async annulFolios(creds, req) {
      const input = { Certificado: certificado(creds), RutEmpresa: req.rutEmpresa, Ambiente: ambienteCode(req.ambiente) };
      const r = await post(creds, 'servicios', ROUTES.annul(req.tipoDte, req.desde, req.hasta), input, false);
      const a = json<{ ok?: boolean; glosa?: string }>(r.body, 'the folio annulment', [creds.pfxPassword ?? '']);
      return { ok: a.ok === true, glosa: String(a.glosa ?? '') };
    },
  };
}

/** Per-document SII state → our status. RLV/RPR are reparos; anything else not DOK is a rejection. */
export function statusForDocumentState(estado: string): DocumentOutcome['status'] {
  if (estado === 'DOK' || estado === 'ACD' || estado === 'ACE') return 'accepted';
  if (estado === 'RLV' || estado === 'RPR') return 'accepted_with_objections';
  return 'rejected';
}

export function parseEnvioStatus(a: EnvioStatusResponse, trackId: string, raw?: Buffer): UploadStatus {
  const estado = String(a.estado ?? '');
  return {
    trackId: String(a.trackId ?? trackId),
    estado,
    glosa: String(a.glosa ?? ''),
    final: FINAL_ENVELOPE_STATES.has(estado),
    documents: (a.detalle ?? []).map((d) => ({
      tipoDte: Number(d.tipo),
      folio: Number(d.folio),
      status: statusForDocumentState(String(d.estado)),
      estado: String(d.estado),
      glosa: (d.errores ?? []).length > 0 ? d.errores.map((e) => `${e.codigo} ${e.descripcion}`).join('; ') : String(d.descripcion ?? ''),
    })),
    estadistica: (a.estadistica ?? []).map((s) => ({
      tipoDte: Number(s.tipo),
      informados: Number(s.informados),
      aceptados: Number(s.aceptados),
      rechazados: Number(s.rechazados),
      reparos: Number(s.reparos),
    })),
    ...(raw ? { raw } : {}),
  };
}

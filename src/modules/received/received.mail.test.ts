import { describe, expect, it } from 'vitest';
import { composeRespuestaMail } from './received.mail.ts';

describe('the answer e-mailed to a supplier', () => {
  const base = {
    deliveryId: '7a1c2a9e-1111-4222-8333-944455556666',
    from: 'DTE <dte@servicio.cl>',
    to: 'intercambio@proveedor.cl',
    replyTo: 'contabilidad@comprador.cl',
    responde: { rut: '77.777.777-7', razonSocial: 'Comprador Ltda.' },
    xml: Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?>\n<RespuestaDTE/>', 'latin1'),
  };

  it('names the upload and its documents, attaching the RespuestaEnvioDTE as given', () => {
    const m = composeRespuestaMail({
      ...base,
      tipo: 'RecepcionEnvio',
      accion: null,
      documentos: [
        { tipoDte: 33, folio: 42, rutEmisor: '76192083-9' },
        { tipoDte: 61, folio: 7, rutEmisor: '76192083-9' },
      ],
      envio: { nombreEnvio: 'EnvioDTE_1.xml', codEnvio: 17 },
    });
    expect(m.messageId).toBe('<7a1c2a9e-1111-4222-8333-944455556666@servicio.cl>');
    expect(m).toMatchObject({ to: base.to, replyTo: base.replyTo });
    expect(m.subject).toBe('Acuse de recibo del envío: Factura electrónica N° 42, emisor RUT 76192083-9 y 1 documento(s) más');
    expect(m.text).toContain('Comprador Ltda. (RUT 77777777-7) acusa recibo del envío EnvioDTE_1.xml (CodEnvio 17)');
    expect(m.text).toContain('- Nota de crédito electrónica N° 7, emisor RUT 76192083-9');
    expect(m.attachments).toEqual([{ filename: 'RespuestaEnvioDTE_77777777-7_17.xml', contentType: 'application/xml', content: base.xml }]);
  });

  it('names the action of a ResultadoDTE and an EnvioRecibos', () => {
    const doc = [{ tipoDte: 33, folio: 42, rutEmisor: '76192083-9' }];
    const rcd = composeRespuestaMail({ ...base, tipo: 'ResultadoDTE', accion: 'RCD', documentos: doc, envio: null });
    expect(rcd.subject).toBe('Reclamo al contenido (RCD): Factura electrónica N° 42, emisor RUT 76192083-9');
    expect(rcd.attachments[0]!.filename).toBe('RespuestaDTE_77777777-7_T33_F42.xml');
    const erm = composeRespuestaMail({ ...base, tipo: 'EnvioRecibos', accion: 'ERM', documentos: doc, envio: null });
    expect(erm.subject).toBe('Recibo de mercaderías o servicios (ERM): Factura electrónica N° 42, emisor RUT 76192083-9');
    expect(erm.attachments[0]!.filename).toBe('EnvioRecibos_77777777-7_T33_F42.xml');
    expect(erm.text).toContain('otorga el recibo de las mercaderías o servicios (Ley 19.983)');
  });
});

import { describe, expect, it } from 'vitest';
import { composeDeliveryMail, composeRespuestaMail, envelopeFilename, isDeliverableAddress, messageDomain } from './exchange.message.ts';

const content = {
  deliveryId: '6f1c2a9e-1111-4222-8333-944455556666',
  from: 'Facturación <dte@emisor.cl>',
  to: 'intercambio@receptor.cl',
  replyTo: 'contacto@emisor.cl',
  emisor: { rut: '76.192.083-9', razonSocial: 'Servicios Ejemplo SpA' },
  tipoDte: 33,
  folio: 42,
  fechaEmision: '2026-11-20',
  montoTotal: 1190000,
  envelope: Buffer.from('<EnvioDTE/>', 'latin1'),
  pdf: { bytes: Buffer.from('%PDF-1.7'), filename: 'DTE-T33-F42.pdf' },
};

describe('the delivery e-mail', () => {
  it('carries the EnvioDTE and the PDF, a Message-ID of the delivery on the From domain, and the issuer as Reply-To', () => {
    const m = composeDeliveryMail(content);
    expect(m.messageId).toBe('<6f1c2a9e-1111-4222-8333-944455556666@emisor.cl>');
    expect(m).toMatchObject({ from: content.from, to: content.to, replyTo: 'contacto@emisor.cl' });
    expect(m.subject).toBe('Factura electrónica N° 42 de Servicios Ejemplo SpA');
    expect(m.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['EnvioDTE_76192083-9_T33_F42.xml', 'application/xml'],
      ['DTE-T33-F42.pdf', 'application/pdf'],
    ]);
    expect(m.attachments[0]!.content).toBe(content.envelope);
    expect(m.text).toContain('Servicios Ejemplo SpA (RUT 76192083-9)');
    expect(m.text).toContain('N° 42 del 2026-11-20');
    expect(m.text).toMatch(/\$1\.190\.000/);
    expect(m.text).toContain('Ley 19.983');
  });

  it('leaves Reply-To out when the tenant has no address', () => {
    expect(composeDeliveryMail({ ...content, replyTo: null })).not.toHaveProperty('replyTo');
  });

  it('names each type as the SII does', () => {
    expect(composeDeliveryMail({ ...content, tipoDte: 61 }).subject).toBe('Nota de crédito electrónica N° 42 de Servicios Ejemplo SpA');
    expect(envelopeFilename({ ...content, tipoDte: 52 })).toBe('EnvioDTE_76192083-9_T52_F42.xml');
  });

  it('takes the Message-ID domain from the From address', () => {
    expect(messageDomain('dte@Example.CL')).toBe('example.cl');
    expect(messageDomain('DTE <dte@localhost>')).toBe('localhost');
    expect(messageDomain('nobody')).toBe('localhost');
  });
});

describe('which addresses a delivery is attempted to', () => {
  it('accepts ordinary mailboxes and refuses the rest', () => {
    for (const ok of ['dte@receptor.cl', 'facturacion.intercambio+33@sub.empresa.com', 'a_b@x-y.cl'])
      expect(isDeliverableAddress(ok)).toBe(true);
    for (const bad of [
      null,
      undefined,
      '',
      'sin arroba',
      'a@b',
      'a b@c.cl',
      'x@y.cl, z@w.cl',
      'Nombre <x@y.cl>',
      `${'a'.repeat(250)}@b.cl`,
    ])
      expect(isDeliverableAddress(bad)).toBe(false);
  });
});

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

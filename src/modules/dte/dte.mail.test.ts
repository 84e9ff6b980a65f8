import { describe, expect, it } from 'vitest';
import { composeDeliveryMail, envelopeFilename } from './dte.mail.ts';

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
});

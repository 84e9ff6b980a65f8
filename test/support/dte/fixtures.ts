import { buildDte } from '../../../src/dte/dte-xml.ts';
import { buildEnvelope, type BuiltEnvelope } from '../../../src/dte/envelope.ts';
import type { BuiltDte } from '../../../src/dte/dte-xml.ts';
import type { Caf } from '../../../src/dte/caf.ts';
import type { DteInput, EmisorInput, TipoDte } from '../../../src/dte/types.ts';
import { SUPPORTED_TIPOS_DTE } from '../../../src/dte/types.ts';
import { createTestCertificate } from './test-certificate.ts';
import type { TestCertificate, TestCertificateOptions } from './test-certificate.ts';
import { createTestCaf, createTestSii } from './test-caf.ts';
import type { TestSii } from './test-caf.ts';

/**
 * Test-only: a complete issuer (certificate, stand-in SII, one CAF per document type) and sample
 * inputs for every supported type. Reusable by service and emulator tests.
 */
export const TEST_EMISOR: EmisorInput = {
  rut: '76.192.083-9',
  razonSocial: 'SASCO SpA',
  giro: 'Servicios integrales de informática',
  acteco: [726000],
  direccion: 'Av. Providencia 1234',
  comuna: 'Providencia',
  ciudad: 'Santiago',
};

export const TEST_FECHA = '2026-03-02';
/** A fixed clock inside the test CAFs' validity (Chile 09:30, summer time). */
export const TEST_NOW = new Date('2026-03-02T12:30:00Z');

export function sampleDteInput(tipoDte: TipoDte, folio = 1, overrides: Partial<DteInput> = {}): DteInput {
  const base: DteInput = {
    tipoDte,
    folio,
    fechaEmision: TEST_FECHA,
    emisor: TEST_EMISOR,
    receptor: {
      rut: '77.777.777-7',
      razonSocial: 'Comercial Ñandú & Cía. "Limitada"',
      giro: 'Comercio al por menor de artículos de librería',
      direccion: "O'Higgins 123",
      comuna: 'Santiago',
      ciudad: 'Santiago',
    },
    detalle: [
      { nombre: 'Servicio de programación <backend>', cantidad: 10, precioUnitario: 35000 },
      { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5, unidad: 'UN', descripcion: 'Incluye soporte' },
      { nombre: 'Capacitación exenta', cantidad: 2, precioUnitario: 45000, exento: true },
    ],
  };
  switch (tipoDte) {
    case 34:
    case 41:
      base.detalle = [
        { nombre: 'Asesoría exenta', cantidad: 3, precioUnitario: 25000 },
        { nombre: 'Curso', cantidad: 1, precioUnitario: 990 },
      ];
      break;
    case 39:
      base.detalle = [
        { nombre: 'Café grande', cantidad: 2, precioUnitario: 2490 },
        { nombre: 'Medialuna', cantidad: 3, precioUnitario: 890 },
        { nombre: 'Diario (exento)', cantidad: 1, precioUnitario: 1200, exento: true },
      ];
      base.receptor = undefined;
      break;
    case 56:
    case 61:
      base.referencias = [{ tipoDocRef: 33, folioRef: 1, fechaRef: '2026-03-01', codRef: 3, razonRef: 'Corrige montos' }];
      break;
    case 43:
      base.detalle = [
        { nombre: 'Venta por cuenta de terceros', cantidad: 10, precioUnitario: 35000, tipoDocLiquidado: 33 },
        { nombre: 'Venta exenta por cuenta de terceros', cantidad: 1, precioUnitario: 20000, exento: true, tipoDocLiquidado: 34 },
      ];
      base.comisiones = [{ tipo: 'comision', glosa: 'Comisión 5 %', tasa: 5, montoNeto: 17500 }];
      break;
    case 110:
    case 111:
    case 112:
      base.receptor = {
        rut: '55.555.555-5',
        razonSocial: 'Globex Corporation',
        giro: 'Import and export',
        direccion: '1 Main Street, Springfield',
        ciudad: 'Springfield',
        extranjero: { nacionalidad: '225' },
      };
      base.detalle = [
        { nombre: 'Servicio de consultoría', cantidad: 10, precioUnitario: 120.25 },
        { nombre: 'Licencia', cantidad: 3, precioUnitario: 33.3333 },
      ];
      base.exportacion = {
        moneda: 'DOLAR USA',
        otraMoneda: { moneda: 'PESO CL', tipoCambio: 950.25 },
        aduana: {
          modalidadVenta: 1,
          clausulaVenta: 1,
          viaTransporte: 4,
          puertoEmbarque: 901,
          puertoDesembarque: 262,
          paisReceptor: 225,
          paisDestino: 225,
        },
      };
      base.indServicio = 4;
      if (tipoDte !== 110)
        base.referencias = [{ tipoDocRef: 110, folioRef: 1, fechaRef: '2026-03-01', codRef: 3, razonRef: 'Corrige montos' }];
      break;
    default:
      break;
  }
  return { ...base, ...overrides };
}

export interface TestKit {
  certificate: TestCertificate;
  sii: TestSii;
  cafs: Record<TipoDte, Caf>;
  cafFiles: Record<TipoDte, Buffer>;
  build(input: DteInput, now?: Date): BuiltDte;
  /** An EnvioDTE or EnvioBOLETA of these DTEs to the SII, signed with the kit's certificate. */
  envelope(dtes: Buffer[]): BuiltEnvelope;
}

export function createTestKit(opts: { certificate?: TestCertificateOptions; fechaAutorizacion?: string } = {}): TestKit {
  const certificate = createTestCertificate(opts.certificate);
  const sii = createTestSii();
  const cafs = {} as Record<TipoDte, Caf>;
  const cafFiles = {} as Record<TipoDte, Buffer>;
  for (const t of SUPPORTED_TIPOS_DTE) {
    const { caf, xml } = createTestCaf({
      sii,
      tipoDte: t,
      rutEmisor: TEST_EMISOR.rut,
      fechaAutorizacion: opts.fechaAutorizacion ?? '2026-01-05',
    });
    cafs[t] = caf;
    cafFiles[t] = xml;
  }
  return {
    certificate,
    sii,
    cafs,
    cafFiles,
    build: (input, now = TEST_NOW) => buildDte(input, { caf: cafs[input.tipoDte], signer: certificate.signer, now }),
    envelope: (dtes) =>
      buildEnvelope({
        dtes,
        rutEmisor: '76192083-9',
        fechaResolucion: '2014-08-22',
        numeroResolucion: 80,
        signer: certificate.signer,
        now: TEST_NOW,
      }),
  };
}

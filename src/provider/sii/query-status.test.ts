import { describe, expect, it } from 'vitest';
import { parseEstDte, parseEstUp } from './query-status.ts';

// The SII:RESPUESTA as recorded through SimpleAPI [C "Consulta Exitosa"] (sii-format.ts siiRespuesta's layout).
const PROCESSED =
  '<?xml version="1.0" encoding="UTF-8"?>\r\n<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema">\r\n    <SII:RESP_BODY>\r\n' +
  '        <TIPO_DOCTO>33</TIPO_DOCTO>\r\n        <INFORMADOS>3</INFORMADOS>\r\n        <ACEPTADOS>2</ACEPTADOS>\r\n        <RECHAZADOS>1</RECHAZADOS>\r\n        <REPAROS>0</REPAROS>\r\n' +
  '        <TIPO_DOCTO>61</TIPO_DOCTO>\r\n        <INFORMADOS>1</INFORMADOS>\r\n        <ACEPTADOS>0</ACEPTADOS>\r\n        <RECHAZADOS>0</RECHAZADOS>\r\n        <REPAROS>1</REPAROS>\r\n' +
  '    </SII:RESP_BODY>\r\n    <SII:RESP_HDR>\r\n        <TRACKID>6018218</TRACKID>\r\n        <ESTADO>EPR</ESTADO>\r\n        <GLOSA>Envio Procesado</GLOSA>\r\n' +
  '        <NUM_ATENCION>65284   ( 2023/04/13 09:06:45)</NUM_ATENCION>\r\n    </SII:RESP_HDR>\r\n</SII:RESPUESTA>\r\n';

describe('QueryEstUp and QueryEstDte answers', () => {
  it('reads the per-type counts once processed, final as the SimpleAPI adapter says', () => {
    const s = parseEstUp(PROCESSED, '6018218');
    expect(s).toMatchObject({
      trackId: '6018218',
      estado: 'EPR',
      glosa: 'Envio Procesado',
      final: true,
      documents: [],
      documentsListed: false,
      estadistica: [
        { tipoDte: 33, informados: 3, aceptados: 2, rechazados: 1, reparos: 0 },
        { tipoDte: 61, informados: 1, aceptados: 0, rechazados: 0, reparos: 1 },
      ],
    });
  });

  it('a stage or a failed query is not final; the asked track id stays when the SII names none', () => {
    const rec = parseEstUp(
      '<SII:RESPUESTA><SII:RESP_HDR><TRACKID>5</TRACKID><ESTADO>PDR</ESTADO><GLOSA>Envío en Proceso</GLOSA></SII:RESP_HDR></SII:RESPUESTA>',
      '5',
    );
    expect(rec).toMatchObject({ estado: 'PDR', final: false, estadistica: [] });
    const failed = parseEstUp(
      '<SII:RESPUESTA><SII:RESP_HDR><ESTADO>-11</ESTADO><ERR_CODE>1</ERR_CODE></SII:RESP_HDR></SII:RESPUESTA>',
      '77',
    );
    expect(failed).toMatchObject({ trackId: '77', estado: '-11', final: false });
    for (const e of ['RSC', 'RFR', 'RCT']) expect(parseEstUp(`<ESTADO>${e}</ESTADO>`, '1').final).toBe(true);
  });

  it('joins GLOSA_ESTADO and GLOSA_ERR as the SimpleAPI adapter does', () => {
    const xml =
      '<SII:RESP_HDR><ESTADO>DOK</ESTADO><GLOSA_ESTADO>DTE Recibido</GLOSA_ESTADO><ERR_CODE>0</ERR_CODE><GLOSA_ERR>Documento Recibido por el SII. Datos Coinciden con los Registrados</GLOSA_ERR><NUM_ATENCION/></SII:RESP_HDR>';
    expect(parseEstDte(xml)).toEqual({
      estado: 'DOK',
      glosa: 'DTE Recibido: Documento Recibido por el SII. Datos Coinciden con los Registrados',
    });
    expect(parseEstDte('<ESTADO>003</ESTADO><GLOSA>Token no existe</GLOSA>')).toEqual({ estado: '003', glosa: 'Token no existe' });
  });
});

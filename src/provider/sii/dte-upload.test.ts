import { describe, expect, it } from 'vitest';
import { parseRecepcionDte } from './dte-upload.ts';

describe('RECEPCIONDTE (DTEUpload answer)', () => {
  it('reads the manual examples: STATUS 0 with TRACKID (fig. 2.1), 5 bare (fig. 2.2), 7 with DETAIL (fig. 2.3)', () => {
    const ok =
      '<?xml version="1.0" ?>\n<RECEPCIONDTE>\n<RUTSENDER>1-9</RUTSENDER>\n<RUTCOMPANY>3-5</RUTCOMPANY>\n<FILE>EnvioEjemplo.xml</FILE>\n<TIMESTAMP>2002-11-25 18:51:44</TIMESTAMP>\n<STATUS>0</STATUS>\n<TRACKID>39</TRACKID>\n</RECEPCIONDTE>';
    expect(parseRecepcionDte(ok)).toEqual({ status: '0', trackId: '39', errors: [] });
    const five = '<RECEPCIONDTE><RUTSENDER>1-9</RUTSENDER><STATUS>5</STATUS></RECEPCIONDTE>';
    expect(parseRecepcionDte(five)).toEqual({ status: '5', trackId: undefined, errors: [] });
    const seven =
      '<RECEPCIONDTE><STATUS>7</STATUS><DETAIL><ERROR>LSX-00265: attribute "version" value "3.2" is wrong (must be ".2")</ERROR>' +
      '<ERROR>LSX-00213: only 0 occurrences of particle "sequence", minimum is 1</ERROR></DETAIL></RECEPCIONDTE>';
    expect(parseRecepcionDte(seven)?.errors).toHaveLength(2);
  });

  it('takes the zero-padded TRACKID as a number, and a duplicate track id from its text', () => {
    expect(parseRecepcionDte('<RECEPCIONDTE>\n <STATUS>0</STATUS>\n\n\n <TRACKID>0004000001</TRACKID>\n</RECEPCIONDTE>')?.trackId).toBe(
      '4000001',
    );
    const dup =
      '<RECEPCIONDTE><STATUS>99</STATUS><DETAIL><ERROR>Archivo ya fue enviado 2 veces con Trackid 251550580. Debe esperar 900 segundos</ERROR></DETAIL></RECEPCIONDTE>';
    expect(parseRecepcionDte(dup)).toMatchObject({ status: '99', trackId: '251550580' });
  });

  it('keeps a reason written as free text after STATUS (docs/sources.md §1.3 (iii)), and refuses what is not RECEPCIONDTE', () => {
    expect(parseRecepcionDte('<RECEPCIONDTE><STATUS>6</STATUS>Empresa no autorizada</RECEPCIONDTE>')?.errors).toEqual([
      'Empresa no autorizada',
    ]);
    expect(parseRecepcionDte('<html>Error 500</html>')).toBeUndefined();
  });
});

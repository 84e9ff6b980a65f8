import { describe, expect, it } from 'vitest';
import { authRespuesta, parseSoapRequest, soapAnswer } from './soap.ts';

describe("the emulated DTEWS's SOAP", () => {
  it("reads the manual's requests (§4.1.2, §4.1.4): operation and string parameters by name", () => {
    const req =
      '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
      '<SOAP-ENV:Body><m:getToken xmlns:m="https://palena.sii.cl/DTEWS/GetTokenFromSeed.jws"><pszXml xsi:type="xsd:string">&lt;getToken/&gt;</pszXml></m:getToken></SOAP-ENV:Body></SOAP-ENV:Envelope>';
    expect(parseSoapRequest(req)).toEqual({ operation: 'getToken', params: { pszXml: '<getToken/>' } });
    expect(parseSoapRequest('<nope')).toBeUndefined();
    expect(parseSoapRequest('<a/>')).toBeUndefined();
  });

  it('answers as the manual shows (§5.2.3.1, fig. 1.8)', () => {
    const xml = authRespuesta([['ESTADO', '00']], [['SEMILLA', '000000000078']]);
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_HDR><ESTADO>00</ESTADO></SII:RESP_HDR><SII:RESP_BODY><SEMILLA>000000000078</SEMILLA></SII:RESP_BODY></SII:RESPUESTA>',
    );
    const body = soapAnswer('https://palena.sii.cl/DTEWS/CrSeed.jws', 'getSeed', xml).body.toString('utf8');
    expect(body).toContain(
      '<ns1:getSeedResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="https://palena.sii.cl/DTEWS/CrSeed.jws">',
    );
    expect(body).toContain('<getSeedReturn xsi:type="xsd:string">&lt;?xml version=&quot;1.0&quot;');
  });
});

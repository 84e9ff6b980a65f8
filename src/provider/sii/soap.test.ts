import { describe, expect, it } from 'vitest';
import { soapEnvelope, soapReturn } from './soap.ts';
import { tagText } from './http.ts';

describe('SOAP for DTEWS', () => {
  it('writes the manual request (RPC/encoded, one string part per parameter, escaped)', () => {
    const x = soapEnvelope('https://maullin.sii.cl/DTEWS/GetTokenFromSeed.jws', 'getToken', [['pszXml', '<getToken>&</getToken>']]);
    expect(x).toContain('<m:getToken xmlns:m="https://maullin.sii.cl/DTEWS/GetTokenFromSeed.jws">');
    expect(x).toContain('<pszXml xsi:type="xsd:string">&lt;getToken&gt;&amp;&lt;/getToken&gt;</pszXml>');
    expect(x).toContain('SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"');
  });

  it("reads the manual's getSeed answer (§5.2.3.1): the escaped SII:RESPUESTA inside getSeedReturn", () => {
    const answer =
      '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
      '<ns1:getSeedResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="https://palena.sii.cl/DTEWS/CrSeed.jws">' +
      '<getSeedReturn xsi:type="xsd:string">&lt;?xml version=&quot;1.0&quot; encoding=&quot;UTF-8&quot;?&gt;\n&lt;SII:RESPUESTA xmlns:SII=&quot;http://www.sii.cl/XMLSchema&quot;&gt;' +
      '&lt;SII:RESP_HDR&gt;&lt;ESTADO&gt;00&lt;/ESTADO&gt;&lt;/SII:RESP_HDR&gt;&lt;SII:RESP_BODY&gt;&lt;SEMILLA&gt;000000000078&lt;/SEMILLA&gt;&lt;/SII:RESP_BODY&gt;&lt;/SII:RESPUESTA&gt;' +
      '</getSeedReturn></ns1:getSeedResponse></soapenv:Body></soapenv:Envelope>';
    const ret = soapReturn(answer, 'getSeed')!;
    expect(tagText(ret, 'ESTADO')).toBe('00');
    expect(tagText(ret, 'SEMILLA')).toBe('000000000078');
    expect(soapReturn(answer, 'getToken')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { decodeEntities, extractCaf, parseErrorPage, parseForm, parseHistory } from './caf-forms.html.ts';
import { lostGrant } from './caf-forms.ts';

// The quirks of the SII's cvc_cgi pages as ruraldte recorded them (docs/sources.md §1.6): upper-case
// tags, spaces around `=`, a bare value (FOLIO_INICIAL value=1), the submit's text as an entity.
const DCTO = `<HTML><BODY><FORM NAME="form1" METHOD="POST" ACTION="/cvc_cgi/dte/of_confirma_folio">
<INPUT NAME="RUT_EMP" readonly="readonly"  value = "76192083" TYPE=Text SIZE=8>
<INPUT NAME="DV_EMP" readonly="readonly" value = "9" TYPE=Text SIZE=1>
<SELECT name = COD_DOCTO onChange ="changeRegregion('/cvc_cgi/dte/');">
  <option value="33">FACTURA ELECTRONICA (COD. 33)</option>
  <option value="61" selected>NOTA CREDITO ELECTRONICA(COD. 61)</option>
</SELECT>
<INPUT NAME="MAX_AUTOR" readonly="readonly" color="#888" value = "4" type=text size=8>
<input name="CANT_DOCTOS" type=text size=8 maxlength=8>
<INPUT NAME="ACEPTAR" TYPE=SUBMIT VALUE="Solicitar Numeraci&oacute;n">
<INPUT TYPE=button NAME="VOLVER" VALUE="Volver">
<INPUT NAME="FOLIOS_DISP" readonly="readonly" bgColor="#cccccc" value = "3" type=text>
</FORM></BODY></HTML>`;

describe('the CAF portal pages', () => {
  it('reads a form as a browser posts it: inputs with spaced or bare values, the chosen option, the submit', () => {
    const f = parseForm(DCTO)!;
    expect(f.action).toBe('/cvc_cgi/dte/of_confirma_folio');
    expect(f.fields).toEqual({
      RUT_EMP: '76192083',
      DV_EMP: '9',
      MAX_AUTOR: '4',
      CANT_DOCTOS: '',
      ACEPTAR: 'Solicitar Numeración',
      FOLIOS_DISP: '3',
      COD_DOCTO: '61',
    });
    expect(f.options.COD_DOCTO).toEqual(['33', '61']);
    const confirm = parseForm(
      '<form action=/cvc_cgi/dte/of_genera_folio><INPUT NAME="FOLIO_INICIAL" TYPE=Text value=1><INPUT NAME=ACEPTAR TYPE=SUBMIT VALUE="Confirmar Folio Inicial"></form>',
    )!;
    expect(confirm).toMatchObject({
      action: '/cvc_cgi/dte/of_genera_folio',
      fields: { FOLIO_INICIAL: '1', ACEPTAR: 'Confirmar Folio Inicial' },
    });
    expect(parseForm('<p>sin formulario</p>')).toBeUndefined();
    expect(parseForm(DCTO, 'of_genera_folio')).toBeUndefined();
  });

  it('a select without a chosen option posts its first; unchecked boxes are not posted', () => {
    const f = parseForm(
      '<FORM ACTION="x"><select name="T"><option value="39">a</option><option value="41">b</option></select><input type=checkbox name=C><input type=checkbox name=D checked value=si></FORM>',
    )!;
    expect(f.fields).toEqual({ T: '39', D: 'si' });
  });

  it("recognises the SII's error page and its code", () => {
    const page =
      '<font class="texto">No ha sido posible completar su solicitud.  Int&eacute;ntelo m&aacute;s tarde y si el problema persiste, ' +
      'comun&iacute;quese con la <a href="http://www.sii.cl/">Mesa de ayuda</a>, informando el siguiente c&oacute;digo <b>LIBRUD-OFSF-DTE-3-1-02</b>.</font>';
    expect(parseErrorPage(page)?.code).toBe('LIBRUD-OFSF-DTE-3-1-02');
    expect(parseErrorPage('<b>ST-SEG-DTE-21-2</b>')?.code).toBe('ST-SEG-DTE-21-2');
    expect(parseErrorPage(DCTO)).toBeUndefined();
    expect(parseErrorPage('<AUTORIZACION><CAF/></AUTORIZACION>')).toBeUndefined();
  });

  it('finds the CAF in an answer only when it holds a type and a range', () => {
    const caf = '<AUTORIZACION><CAF version="1.0"><DA><RE>1-9</RE><TD>33</TD><RNG><D>1</D><H>5</H></RNG></DA></CAF></AUTORIZACION>';
    expect(extractCaf(`<html>${caf}</html>`)).toBe(caf);
    expect(extractCaf('<AUTORIZACION></AUTORIZACION>')).toBeUndefined();
  });

  it('reads the history of granted ranges, dates as YYYY-MM-DD; a type the company may not stamp is not enabled', () => {
    const h = parseHistory(
      '<TABLE><TR><TH>Fecha</TH><TH>Cantidad</TH><TH>Desde</TH><TH>Hasta</TH><TH>Solicitante</TH></TR>' +
        '<TR><TD>02-03-2026</TD><TD>5</TD><TD>6</TD><TD>10</TD><TD>Firmante de Prueba</TD></TR>' +
        '<tr><td>01-03-2026</td><td> 1.000 </td><td>1</td><td>5</td><td>Jos&eacute;</td></tr></TABLE>',
    );
    expect(h).toEqual({
      enabled: true,
      ranges: [
        { fecha: '2026-03-02', cantidad: 5, desde: 6, hasta: 10, mandatario: 'Firmante de Prueba' },
        { fecha: '2026-03-01', cantidad: 1000, desde: 1, hasta: 5, mandatario: 'José' },
      ],
    });
    expect(parseHistory('La empresa no tiene habilitado el documento para timbrar.').enabled).toBe(false);
    expect(decodeEntities('Numeraci&oacute;n &#209; &#x41;')).toBe('Numeración Ñ A');
  });

  it('takes as the lost grant a range granted since the request, of its quantity, that the tenant does not hold', () => {
    const ranges = [
      { fecha: '2026-03-02', cantidad: 5, desde: 11, hasta: 15, mandatario: '' },
      { fecha: '2026-03-02', cantidad: 5, desde: 6, hasta: 10, mandatario: '' },
      { fecha: '2026-03-01', cantidad: 5, desde: 1, hasta: 5, mandatario: '' },
    ];
    const since = new Date('2026-03-02T12:00:00Z');
    expect(lostGrant(ranges, { cantidad: 5, resume: { since, held: [] } })?.desde).toBe(11);
    expect(lostGrant(ranges, { cantidad: 5, resume: { since, held: [{ desde: 11, hasta: 15 }] } })?.desde).toBe(6);
    expect(lostGrant(ranges, { cantidad: 5, resume: { since, held: [{ desde: 6, hasta: 15 }] } })).toBeUndefined();
    expect(lostGrant(ranges, { cantidad: 4, resume: { since, held: [] } })).toBeUndefined();
  });
});

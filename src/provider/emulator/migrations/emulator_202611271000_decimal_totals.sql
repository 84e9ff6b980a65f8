-- Export documents (110, 111, 112) state their amounts in their own currency with up to four
-- decimals (SII-FORMATO v2.2 §A fields 106, 124; DTE_v10.xsd Exportaciones/Totales/MntTotal):
-- the received MntTotal is kept exactly, for the "DTE Repetido" key and REF-2-780.
alter table emu_documents alter column monto_total type numeric;

-- The SII's CAF web forms (sii/caf-forms.ts, docs/emulator.md "The SII's CAF forms"): a granted
-- CAF is kept as issued, so downloading it again (of_genera_archivo) answers the same file, and
-- the history (of_consulta2_folio) shows who asked for it. Rows from before have neither.
alter table emu_cafs add column caf_xml bytea;
alter table emu_cafs add column granted_by text;

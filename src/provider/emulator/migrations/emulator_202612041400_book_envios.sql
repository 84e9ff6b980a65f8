-- Books received at DTEUpload (sii/books.ts): each one's FolioNotificacion, so that a second
-- book of the same company and kind with the same folio is refused as the SII does
-- (docs/emulator.md, "Books"). The envío itself is a row of emu_envios with tipo 'libro'.
create table emu_book_notifications (
  rut_emisor text not null,
  book_kind text not null,
  folio_notificacion bigint not null,
  track_id bigint not null,
  primary key (rut_emisor, book_kind, folio_notificacion)
);

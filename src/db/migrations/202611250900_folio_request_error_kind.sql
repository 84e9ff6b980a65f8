-- A failed folio request records the error's kind (src/errors.ts), not an HTTP status: the
-- database knows nothing of HTTP (docs/design.md). Existing rows are mapped once.
alter table folio_requests add column error_kind text;
update folio_requests set error_kind = case error_status
  when 400 then 'invalid_request' when 401 then 'unauthorized' when 404 then 'not_found'
  when 409 then 'conflict' when 410 then 'gone' when 413 then 'too_large'
  when 415 then 'unsupported_media_type' when 422 then 'unprocessable' when 429 then 'rate_limited'
  when 503 then 'unavailable' when 504 then 'gateway_timeout' else 'bad_gateway' end
  where status = 'failed';
alter table folio_requests drop column error_status;

-- A book send's claim lapses (docs/certification.md, "Books: sending"): the request that uploads a
-- book holds the row under `lease_holder` (a token unique to that claim) until `lease_until`,
-- renewed while it works; a process that dies mid-upload leaves a lease that runs out, and the next
-- send takes the row over instead of finding it `uploading` forever. Every write of the upload's
-- outcome names the token, so a request whose lease was taken over records nothing.
-- `book_xml` is the signed file as it was uploaded (kept before the upload): the attempt that takes
-- over sends those very bytes, so if the dead one reached the SII, the SII recognises the same file
-- (DTEUpload STATUS 99, the first track id) instead of taking the book twice.
-- `polls`: how often the job that follows the SII's review (LOK/LRH…) has asked, for its backoff.
alter table certification_book_sends add column lease_holder text;
alter table certification_book_sends add column lease_until timestamptz;
alter table certification_book_sends add column book_xml bytea;
alter table certification_book_sends add column polls integer not null default 0;

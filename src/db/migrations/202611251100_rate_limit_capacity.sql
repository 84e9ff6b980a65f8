-- Each bucket row carries its own capacity and refill rate, so one statement can take from
-- several buckets with different limits at once (an API key's and its account's).
alter table rate_limit_buckets add column capacity double precision;
alter table rate_limit_buckets add column rate double precision;

-- Rate-limit leases (src/lib/rate-limiter.ts): a process takes several tokens at once from a
-- shared bucket and spends them locally; `granted` says how many the last statement handed out.
alter table rate_limit_buckets add column granted double precision not null default 0;

-- Who holds a running job's lease (src/jobs/queue.ts): a token unique to one claim. The worker
-- renews the lease with a heartbeat while the handler runs, so the lease can be short (a killed
-- worker's job is claimed again soon), and every renewal, commit fence and finish names the token:
-- a worker whose lease was taken over can no longer touch the job.
alter table jobs add column locked_by text;

-- The pgbench side of the contention experiment (bench/run.sh, docs/performance.md): the same
-- read-modify-write transaction on one hot row as bench/contention_bench.cpp, at SERIALIZABLE.
-- Run with --max-tries so that pgbench retries serialization failures and deadlocks at once.
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT value FROM rebound_hot WHERE id = 1 \gset
UPDATE rebound_hot SET value = :value + 1 WHERE id = 1;
COMMIT;

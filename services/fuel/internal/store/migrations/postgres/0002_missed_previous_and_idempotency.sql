-- Missed fill-ups: the owner did not log one or more fill-ups before this
-- record, so the span it closes yields no consumption or cost sample.
ALTER TABLE refuels ADD COLUMN missed_previous boolean NOT NULL DEFAULT false;

-- Stored answers of POST requests that carried an Idempotency-Key. The key
-- is scoped to the method and path; the primary key makes two concurrent
-- requests with one key create one record. request_hash is the SHA-256 of
-- the body (hex); only 2xx answers are stored; rows older than 24 hours
-- count as absent and are purged in the background.
CREATE TABLE idempotency_keys (
    idem_key     varchar(128) NOT NULL,
    method       varchar(16)  NOT NULL,
    path         varchar(256) NOT NULL,
    request_hash char(64)     NOT NULL,
    status       integer      NOT NULL CHECK (status BETWEEN 200 AND 299),
    body         bytea        NOT NULL,
    created_at   timestamptz  NOT NULL,
    PRIMARY KEY (idem_key, method, path)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

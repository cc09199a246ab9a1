-- Missed fill-ups: the owner did not log one or more fill-ups before this
-- record, so the span it closes yields no consumption or cost sample.
ALTER TABLE refuels ADD COLUMN missed_previous INTEGER NOT NULL DEFAULT 0 CHECK (missed_previous IN (0, 1));

-- Stored answers of POST requests that carried an Idempotency-Key (see the
-- PostgreSQL migration of the same version).
CREATE TABLE idempotency_keys (
    idem_key     TEXT     NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 128),
    method       TEXT     NOT NULL,
    path         TEXT     NOT NULL,
    request_hash TEXT     NOT NULL,
    status       INTEGER  NOT NULL CHECK (status BETWEEN 200 AND 299),
    body         BLOB     NOT NULL,
    created_at   DATETIME NOT NULL,
    PRIMARY KEY (idem_key, method, path)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

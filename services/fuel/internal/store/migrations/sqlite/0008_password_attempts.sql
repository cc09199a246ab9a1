-- Password attempts counted per budget and one-minute window (see the
-- PostgreSQL migration of the same version). SQLite runs one process, but
-- the table works the same there.
CREATE TABLE password_attempts (
    kind         TEXT    NOT NULL CHECK (kind IN ('username', 'address')),
    key_hash     TEXT    NOT NULL,
    window_start INTEGER NOT NULL,
    attempts     INTEGER NOT NULL,
    PRIMARY KEY (kind, key_hash, window_start)
) WITHOUT ROWID;

CREATE INDEX password_attempts_window ON password_attempts (window_start);

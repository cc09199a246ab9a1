-- Password attempts counted where every replica sees them
-- (proto-docs/auth-decisions.md, "Password attempts counted across
-- replicas"): one row per budget (kind: username or address; key_hash:
-- the SHA-256 of the username or address, hex, so that a password typed
-- into the username field is not stored as typed) and fixed one-minute
-- window (window_start: its start in Unix seconds). Each attempt is one
-- upsert of its row; rows of windows that no longer count are purged in
-- the background.
CREATE TABLE password_attempts (
    kind         varchar(16) NOT NULL CHECK (kind IN ('username', 'address')),
    key_hash     char(64)    NOT NULL,
    window_start bigint      NOT NULL,
    attempts     integer     NOT NULL,
    PRIMARY KEY (kind, key_hash, window_start)
);

CREATE INDEX password_attempts_window ON password_attempts (window_start);

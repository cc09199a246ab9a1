-- Accounts (see the PostgreSQL migration of the same version).
CREATE TABLE users (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    username      TEXT     NOT NULL CHECK (length(username) <= 64 AND trim(username) <> ''),
    password_hash TEXT     NOT NULL DEFAULT '',
    is_admin      INTEGER  NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    oidc_issuer   TEXT,
    oidc_subject  TEXT,
    created_at    DATETIME NOT NULL,
    CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL)),
    UNIQUE (oidc_issuer, oidc_subject)
);
CREATE UNIQUE INDEX users_username ON users (lower(username));

INSERT INTO users (id, username, is_admin, created_at) VALUES (1, 'owner', 1, CURRENT_TIMESTAMP);

CREATE TABLE auth_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind         TEXT     NOT NULL CHECK (kind IN ('session', 'token')),
    name         TEXT     NOT NULL DEFAULT '' CHECK (length(name) <= 64),
    scope        TEXT     NOT NULL CHECK (scope IN ('read', 'write')),
    token_hash   BLOB     NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at   DATETIME NOT NULL,
    last_used_at DATETIME NOT NULL,
    expires_at   DATETIME,
    CHECK (kind = 'token' OR expires_at IS NOT NULL)
);
CREATE INDEX auth_tokens_user ON auth_tokens (user_id);

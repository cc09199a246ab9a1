-- Notifications (see the PostgreSQL migration of the same version).
-- Timestamps are DATETIME text in UTC, as in the other tables; new tables
-- carry real foreign keys (the writer has foreign_keys on).
CREATE TABLE notification_settings (
    user_id          INTEGER  PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    email            TEXT     NOT NULL DEFAULT '' CHECK (length(email) <= 254),
    webhook_url      TEXT     NOT NULL DEFAULT '' CHECK (length(webhook_url) <= 2048),
    webhook_format   TEXT     NOT NULL DEFAULT 'generic' CHECK (webhook_format IN ('generic', 'ntfy', 'gotify')),
    webhook_token    TEXT     NOT NULL DEFAULT '' CHECK (length(webhook_token) <= 512),
    push_on          BOOLEAN  NOT NULL DEFAULT 0,
    email_on         BOOLEAN  NOT NULL DEFAULT 0,
    webhook_on       BOOLEAN  NOT NULL DEFAULT 0,
    notify_when      TEXT     NOT NULL DEFAULT 'due' CHECK (notify_when IN ('due', 'digest')),
    digest_time      TEXT     NOT NULL DEFAULT '08:00'
        CHECK (length(digest_time) = 5 AND digest_time GLOB '[0-2][0-9]:[0-5][0-9]' AND digest_time <= '23:59'),
    viewer_reminders BOOLEAN  NOT NULL DEFAULT 0,
    updated_at       DATETIME NOT NULL,
    CHECK (NOT email_on OR email <> ''),
    CHECK (NOT webhook_on OR webhook_url <> '')
);

CREATE TABLE push_subscriptions (
    id         INTEGER  PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint   TEXT     NOT NULL UNIQUE CHECK (length(endpoint) <= 2048),
    p256dh     TEXT     NOT NULL CHECK (length(p256dh) <= 256),
    auth       TEXT     NOT NULL CHECK (length(auth) <= 256),
    created_at DATETIME NOT NULL
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id, id);

CREATE TABLE service_keys (
    name       TEXT     PRIMARY KEY CHECK (length(name) <= 64),
    value      TEXT     NOT NULL,
    created_at DATETIME NOT NULL
);

CREATE TABLE notification_deliveries (
    id              INTEGER  PRIMARY KEY AUTOINCREMENT,
    user_id         INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    channel         TEXT     NOT NULL CHECK (channel IN ('push', 'email', 'webhook')),
    occurrence      TEXT     NOT NULL CHECK (length(occurrence) <= 200),
    kind            TEXT     NOT NULL CHECK (kind IN ('reminder', 'digest')),
    reminder_id     INTEGER  REFERENCES reminders (id) ON DELETE SET NULL,
    reminder_status TEXT     CHECK (reminder_status IN ('soon', 'overdue')),
    title           TEXT     NOT NULL CHECK (length(title) <= 200),
    vehicle         TEXT     NOT NULL DEFAULT '' CHECK (length(vehicle) <= 64),
    state           TEXT     NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
    attempts        INTEGER  NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error      TEXT     NOT NULL DEFAULT '' CHECK (length(last_error) <= 500),
    claim_token     TEXT     NOT NULL CHECK (length(claim_token) <= 64),
    lease_until     DATETIME NOT NULL,
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL,
    UNIQUE (user_id, channel, occurrence)
);
CREATE INDEX notification_deliveries_user ON notification_deliveries (user_id, id);
CREATE INDEX notification_deliveries_reminder ON notification_deliveries (reminder_id);

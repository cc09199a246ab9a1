-- Files kept with a record (see the PostgreSQL migration of the same
-- version).
CREATE TABLE attachments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    refuel_id    INTEGER  REFERENCES refuels (id) ON DELETE CASCADE,
    expense_id   INTEGER  REFERENCES expenses (id) ON DELETE CASCADE,
    file_key     TEXT     NOT NULL UNIQUE
        CHECK (length(file_key) = 32 AND file_key NOT GLOB '*[^0-9a-f]*'),
    file_name    TEXT     NOT NULL CHECK (length(file_name) <= 255),
    content_type TEXT     NOT NULL
        CHECK (content_type IN ('image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'application/pdf')),
    size_bytes   INTEGER  NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 10485760),
    sha256       TEXT     NOT NULL CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    created_at   DATETIME NOT NULL,
    CHECK ((refuel_id IS NOT NULL) + (expense_id IS NOT NULL) = 1)
);

CREATE INDEX attachments_refuel ON attachments (refuel_id, id) WHERE refuel_id IS NOT NULL;
CREATE INDEX attachments_expense ON attachments (expense_id, id) WHERE expense_id IS NOT NULL;

CREATE TABLE deleted_attachment_files (
    file_key TEXT PRIMARY KEY
);

CREATE TRIGGER attachments_deleted AFTER DELETE ON attachments
BEGIN
    INSERT OR IGNORE INTO deleted_attachment_files (file_key) VALUES (OLD.file_key);
END;

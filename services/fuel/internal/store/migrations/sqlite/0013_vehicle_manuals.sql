-- The docqa documents that are a vehicle's manuals (see the PostgreSQL
-- migration of the same version): a JSON array of strings.
ALTER TABLE vehicles ADD COLUMN manual_md5s TEXT NOT NULL DEFAULT '[]';

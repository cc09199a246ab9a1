-- The docqa documents that are a vehicle's manuals (their fileMd5, in the
-- owner's order) as a JSON array of strings; fuel keeps the link, docqa the
-- documents (proto-docs/fuel-decisions.md, "Manuals of a vehicle").
ALTER TABLE vehicles ADD COLUMN manual_md5s text NOT NULL DEFAULT '[]';

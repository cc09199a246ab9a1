-- Per-user data (see the PostgreSQL migration of the same version).
--
-- SQLite cannot add a column with a REFERENCES clause and a non-NULL
-- default while foreign keys are on, and the documented table rebuild
-- needs foreign keys off, which cannot change inside the migration's
-- transaction: with them on, dropping the old vehicles table would
-- cascade to every refuel. So owner_id is a plain column and two triggers
-- do what the foreign key does on PostgreSQL: an owner must exist, and
-- deleting a user deletes its vehicles (and by their foreign keys, their
-- refuels and members). The store always writes owner_id; the default
-- only fills the existing rows.
ALTER TABLE vehicles ADD COLUMN owner_id INTEGER NOT NULL DEFAULT 1;

CREATE TRIGGER vehicles_owner_insert BEFORE INSERT ON vehicles
WHEN NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.owner_id)
BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;

CREATE TRIGGER vehicles_owner_update BEFORE UPDATE OF owner_id ON vehicles
WHEN NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.owner_id)
BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;

CREATE TRIGGER users_delete_vehicles AFTER DELETE ON users
BEGIN
    DELETE FROM vehicles WHERE owner_id = OLD.id;
END;

-- At most one default vehicle per owner, whatever the writers do.
DROP INDEX vehicles_one_default;
CREATE UNIQUE INDEX vehicles_one_default_per_owner ON vehicles (owner_id) WHERE default_vehicle = 1;
CREATE INDEX vehicles_owner ON vehicles (owner_id);

CREATE TABLE vehicle_members (
    vehicle_id INTEGER  NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
    user_id    INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT     NOT NULL CHECK (role IN ('viewer', 'editor')),
    created_at DATETIME NOT NULL,
    PRIMARY KEY (vehicle_id, user_id)
);
CREATE INDEX vehicle_members_user ON vehicle_members (user_id);

-- Idempotency keys scoped per user: a new primary key, so the table is
-- rebuilt (no other table references it).
CREATE TABLE idempotency_keys_new (
    user_id      INTEGER  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    idem_key     TEXT     NOT NULL CHECK (length(idem_key) BETWEEN 1 AND 128),
    method       TEXT     NOT NULL,
    path         TEXT     NOT NULL,
    request_hash TEXT     NOT NULL,
    status       INTEGER  NOT NULL CHECK (status BETWEEN 200 AND 299),
    body         BLOB     NOT NULL,
    created_at   DATETIME NOT NULL,
    PRIMARY KEY (user_id, idem_key, method, path)
);
INSERT INTO idempotency_keys_new (user_id, idem_key, method, path, request_hash, status, body, created_at)
    SELECT 1, idem_key, method, path, request_hash, status, body, created_at FROM idempotency_keys;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

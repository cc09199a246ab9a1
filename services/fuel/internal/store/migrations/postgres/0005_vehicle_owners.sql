-- Per-user data (proto-docs/auth-decisions.md, "Per-user data"). Every
-- vehicle has an owner; what existed before belongs to the built-in user
-- (id 1). Deleting a user deletes its vehicles, their refuels and its
-- memberships.
ALTER TABLE vehicles ADD COLUMN owner_id bigint NOT NULL DEFAULT 1 REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE vehicles ALTER COLUMN owner_id DROP DEFAULT;

-- At most one default vehicle per owner, whatever the writers do.
DROP INDEX vehicles_one_default;
CREATE UNIQUE INDEX vehicles_one_default_per_owner ON vehicles (owner_id) WHERE default_vehicle;
CREATE INDEX vehicles_owner ON vehicles (owner_id);

-- Users a vehicle is shared with: a viewer reads everything of it, an
-- editor also writes its refuels. The owner is never a member.
CREATE TABLE vehicle_members (
    vehicle_id bigint      NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
    user_id    bigint      NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       varchar(8)  NOT NULL CHECK (role IN ('viewer', 'editor')),
    created_at timestamptz NOT NULL,
    PRIMARY KEY (vehicle_id, user_id)
);
CREATE INDEX vehicle_members_user ON vehicle_members (user_id);

-- Idempotency keys are scoped per user: two users sending the same key
-- never see each other's answer.
ALTER TABLE idempotency_keys ADD COLUMN user_id bigint NOT NULL DEFAULT 1 REFERENCES users (id) ON DELETE CASCADE;
ALTER TABLE idempotency_keys ALTER COLUMN user_id DROP DEFAULT;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (user_id, idem_key, method, path);

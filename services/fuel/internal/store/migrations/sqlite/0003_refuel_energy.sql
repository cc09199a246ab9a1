-- The energy of each refuel (see the PostgreSQL migration of the same
-- version). SQLite cannot drop a column default: the store always writes
-- the column, so the default only ever fills existing rows.
ALTER TABLE refuels ADD COLUMN energy TEXT NOT NULL DEFAULT 'gasoline'
    CHECK (energy IN ('gasoline', 'diesel', 'lpg', 'cng', 'electricity', 'hydrogen'));

UPDATE refuels SET energy = CASE (SELECT fuel_type FROM vehicles WHERE vehicles.id = refuels.vehicle_id)
        WHEN 'diesel' THEN 'diesel'
        WHEN 'electric' THEN 'electricity'
        ELSE 'gasoline' END;

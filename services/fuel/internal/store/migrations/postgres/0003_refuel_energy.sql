-- The energy of each refuel: its quantity (the liters column) is counted
-- in that energy's unit (l, kWh, kg), and the statistics keep energies
-- apart. Existing records get their vehicle's default energy, the value a
-- record that names none gets on create (fuel.DefaultEnergy).
ALTER TABLE refuels ADD COLUMN energy text NOT NULL DEFAULT 'gasoline'
    CHECK (energy IN ('gasoline', 'diesel', 'lpg', 'cng', 'electricity', 'hydrogen'));

UPDATE refuels SET energy = CASE v.fuel_type
        WHEN 'diesel' THEN 'diesel'
        WHEN 'electric' THEN 'electricity'
        ELSE 'gasoline' END
    FROM vehicles v WHERE v.id = refuels.vehicle_id;

ALTER TABLE refuels ALTER COLUMN energy DROP DEFAULT;

-- A vehicle answers the highest odometer reading of its refuels as its
-- current_odometer when that is above the owner's value
-- (proto-docs/fuel-decisions.md, "Current odometer"): this index makes
-- that maximum one index read per vehicle.
CREATE INDEX refuels_vehicle_odometer ON refuels (vehicle_id, odometer);

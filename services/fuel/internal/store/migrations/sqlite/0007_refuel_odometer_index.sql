-- A vehicle answers the highest odometer reading of its refuels as its
-- current_odometer when that is above the owner's value
-- (proto-docs/fuel-decisions.md, "Current odometer"): this index makes
-- that maximum one index read per vehicle. Odometers are decimal text
-- here, whose order is not the numbers': the index is on the REAL, as the
-- query's ORDER BY is.
CREATE INDEX refuels_vehicle_odometer ON refuels (vehicle_id, CAST(odometer AS REAL));

-- What the statistics read of each refuel (store/statistics.go), kept by
-- SQLite itself: one row per refuel, ordered as the statistics scan them
-- (a vehicle's records by time, then id), its ten fields joined into one
-- text, '|' between them (none of them can hold a '|': the refuels' checks
-- keep the quantities to digits and a point, the flags to 0 and 1, the
-- energy to its names, and the time is the driver's own text), the home
-- amount empty when NULL (concat_ws leaves a NULL out, which would shift
-- the fields).
--
-- Joining the fields as the scan ran (concat_ws over the refuels) was a
-- third of the statistics' time on SQLite, and the index's every entry a
-- lookup into the table; this table is read in its own key's order. The
-- triggers below keep it to the refuels in the same statement, whatever
-- writes them (the API, an import, a vehicle's cascading delete), so it is
-- never behind. PostgreSQL has no such table: it reads the columns.
--
-- The line's form is read by feedPackedRecord: a change of it is a new
-- migration that drops and refills this table.
CREATE TABLE refuel_stats_lines (
    vehicle_id  INTEGER  NOT NULL,
    refuel_time DATETIME NOT NULL,
    id          INTEGER  NOT NULL,
    line        TEXT     NOT NULL,
    PRIMARY KEY (vehicle_id, refuel_time, id)
) WITHOUT ROWID;

INSERT INTO refuel_stats_lines (vehicle_id, refuel_time, id, line)
SELECT vehicle_id, refuel_time, id,
       concat_ws('|', id, refuel_time, energy, odometer, liters, total_amount, price_per_liter,
                 is_full, missed_previous, ifnull(home_amount, ''))
FROM refuels;

CREATE TRIGGER refuel_stats_lines_insert AFTER INSERT ON refuels
BEGIN
    INSERT INTO refuel_stats_lines (vehicle_id, refuel_time, id, line)
    VALUES (NEW.vehicle_id, NEW.refuel_time, NEW.id,
            concat_ws('|', NEW.id, NEW.refuel_time, NEW.energy, NEW.odometer, NEW.liters, NEW.total_amount,
                      NEW.price_per_liter, NEW.is_full, NEW.missed_previous, ifnull(NEW.home_amount, '')));
END;

CREATE TRIGGER refuel_stats_lines_update AFTER UPDATE ON refuels
BEGIN
    DELETE FROM refuel_stats_lines
    WHERE vehicle_id = OLD.vehicle_id AND refuel_time = OLD.refuel_time AND id = OLD.id;
    INSERT INTO refuel_stats_lines (vehicle_id, refuel_time, id, line)
    VALUES (NEW.vehicle_id, NEW.refuel_time, NEW.id,
            concat_ws('|', NEW.id, NEW.refuel_time, NEW.energy, NEW.odometer, NEW.liters, NEW.total_amount,
                      NEW.price_per_liter, NEW.is_full, NEW.missed_previous, ifnull(NEW.home_amount, '')));
END;

CREATE TRIGGER refuel_stats_lines_delete AFTER DELETE ON refuels
BEGIN
    DELETE FROM refuel_stats_lines
    WHERE vehicle_id = OLD.vehicle_id AND refuel_time = OLD.refuel_time AND id = OLD.id;
END;

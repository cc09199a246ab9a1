-- A reminder's last_done may be a reading without its day (see the
-- PostgreSQL migration of the same version). SQLite cannot change a CHECK:
-- the table is rebuilt (no other table references it, so dropping the
-- old one with foreign keys on cascades nowhere), its ids kept and its
-- AUTOINCREMENT sequence carried over, so that a deleted reminder's id
-- (a calendar event's UID) is never given again.
CREATE TABLE reminders_new (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    vehicle_id         INTEGER  NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
    title              TEXT     NOT NULL CHECK (length(title) <= 200 AND trim(title) <> ''),
    category           TEXT     NOT NULL CHECK (category IN ('service', 'repair', 'tyres', 'inspection',
        'insurance', 'tax', 'parking', 'toll', 'wash', 'fine', 'accessory', 'other')),
    title_match        TEXT     NOT NULL DEFAULT '' CHECK (length(title_match) <= 200),
    every_km           TEXT
        CHECK (every_km IS NULL OR (typeof(every_km) = 'text' AND every_km NOT GLOB '*[^0-9.]*'
                                    AND CAST(every_km AS REAL) > 0 AND CAST(every_km AS REAL) < 1e11)),
    every_months       INTEGER  CHECK (every_months BETWEEN 1 AND 1200),
    last_done_time     DATETIME,
    last_done_odometer TEXT
        CHECK (last_done_odometer IS NULL OR (typeof(last_done_odometer) = 'text'
               AND last_done_odometer NOT GLOB '*[^0-9.]*' AND CAST(last_done_odometer AS REAL) < 1e11)),
    notes              TEXT     NOT NULL DEFAULT '' CHECK (length(notes) <= 1000),
    soon_km            TEXT     NOT NULL DEFAULT '1000'
        CHECK (typeof(soon_km) = 'text' AND soon_km NOT GLOB '*[^0-9.]*' AND CAST(soon_km AS REAL) < 1e11),
    soon_days          INTEGER  NOT NULL DEFAULT 30 CHECK (soon_days BETWEEN 0 AND 3650),
    start_odometer     TEXT     NOT NULL DEFAULT '0'
        CHECK (typeof(start_odometer) = 'text' AND start_odometer NOT GLOB '*[^0-9.]*'
               AND CAST(start_odometer AS REAL) < 1e11),
    revision           INTEGER  NOT NULL DEFAULT 0 CHECK (revision >= 0),
    created_at         DATETIME NOT NULL,
    updated_at         DATETIME NOT NULL,
    CHECK (every_km IS NOT NULL OR every_months IS NOT NULL),
    CHECK (last_done_time IS NOT NULL OR last_done_odometer IS NULL OR every_months IS NULL)
);
INSERT INTO reminders_new (id, vehicle_id, title, category, title_match, every_km, every_months, last_done_time,
                           last_done_odometer, notes, soon_km, soon_days, start_odometer, revision, created_at, updated_at)
    SELECT id, vehicle_id, title, category, title_match, every_km, every_months, last_done_time,
           last_done_odometer, notes, soon_km, soon_days, start_odometer, revision, created_at, updated_at
    FROM reminders;
DELETE FROM sqlite_sequence WHERE name = 'reminders_new';
INSERT INTO sqlite_sequence (name, seq) SELECT 'reminders_new', seq FROM sqlite_sequence WHERE name = 'reminders';
DROP TABLE reminders;
ALTER TABLE reminders_new RENAME TO reminders;
CREATE INDEX reminders_vehicle ON reminders (vehicle_id, id);

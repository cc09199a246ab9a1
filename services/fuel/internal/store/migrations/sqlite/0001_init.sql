-- Vehicles and their refuel records. SQLite has no exact decimal type, so
-- quantities are stored as canonical decimal TEXT ("40.5") written by the
-- service; the CHECKs keep the bounds of the API's field tables (plain
-- non-negative decimals below 1e11, liters above 0).
-- Timestamps are DATETIME text in UTC, which sorts in time order.
CREATE TABLE vehicles (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    name             TEXT     NOT NULL CHECK (length(name) <= 64 AND trim(name) <> ''),
    brand            TEXT     NOT NULL DEFAULT '' CHECK (length(brand) <= 64),
    model            TEXT     NOT NULL DEFAULT '' CHECK (length(model) <= 64),
    plate_number     TEXT     NOT NULL DEFAULT '' CHECK (length(plate_number) <= 32),
    fuel_type        TEXT     NOT NULL
        CHECK (fuel_type IN ('gasoline', 'diesel', 'hybrid', 'electric', 'plug_in_hybrid')),
    tank_capacity    TEXT     NOT NULL DEFAULT '0'
        CHECK (typeof(tank_capacity) = 'text' AND tank_capacity NOT GLOB '*[^0-9.]*'
               AND CAST(tank_capacity AS REAL) < 1e11),
    current_odometer TEXT     NOT NULL DEFAULT '0'
        CHECK (typeof(current_odometer) = 'text' AND current_odometer NOT GLOB '*[^0-9.]*'
               AND CAST(current_odometer AS REAL) < 1e11),
    default_vehicle  INTEGER  NOT NULL DEFAULT 0 CHECK (default_vehicle IN (0, 1)),
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);

-- At most one default vehicle, whatever the writers do.
CREATE UNIQUE INDEX vehicles_one_default ON vehicles (default_vehicle) WHERE default_vehicle = 1;

CREATE TABLE refuels (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    vehicle_id      INTEGER  NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
    refuel_time     DATETIME NOT NULL,
    odometer        TEXT     NOT NULL
        CHECK (typeof(odometer) = 'text' AND odometer NOT GLOB '*[^0-9.]*'
               AND CAST(odometer AS REAL) < 1e11),
    fuel_type       TEXT     NOT NULL CHECK (length(fuel_type) <= 32 AND trim(fuel_type) <> ''),
    liters          TEXT     NOT NULL
        CHECK (typeof(liters) = 'text' AND liters NOT GLOB '*[^0-9.]*'
               AND CAST(liters AS REAL) > 0 AND CAST(liters AS REAL) < 1e11),
    total_amount    TEXT     NOT NULL
        CHECK (typeof(total_amount) = 'text' AND total_amount NOT GLOB '*[^0-9.]*'
               AND CAST(total_amount AS REAL) < 1e11),
    price_per_liter TEXT     NOT NULL
        CHECK (typeof(price_per_liter) = 'text' AND price_per_liter NOT GLOB '*[^0-9.]*'),
    station_name    TEXT     NOT NULL DEFAULT '' CHECK (length(station_name) <= 128),
    is_full         INTEGER  NOT NULL DEFAULT 0 CHECK (is_full IN (0, 1)),
    remark          TEXT     NOT NULL DEFAULT '' CHECK (length(remark) <= 512),
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);

-- Serves the list (newest first) and, scanned backwards, the statistics.
CREATE INDEX refuels_vehicle_time ON refuels (vehicle_id, refuel_time DESC, id DESC);

-- Each user's preferences (see the PostgreSQL migration of the same
-- version). A new table can carry a real foreign key on SQLite (0005 used
-- triggers only because ALTER TABLE cannot add one): the writer connection
-- has foreign_keys on, so deleting a user deletes its row.
CREATE TABLE user_preferences (
    user_id                   INTEGER  PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    distance_unit             TEXT     CHECK (distance_unit IN ('km', 'mi')),
    volume_unit               TEXT     CHECK (volume_unit IN ('l', 'gal_us', 'gal_uk')),
    consumption_unit          TEXT     CHECK (consumption_unit IN ('l_per_100km', 'km_per_l', 'mpg_us', 'mpg_uk')),
    electric_consumption_unit TEXT     CHECK (electric_consumption_unit IN ('kwh_per_100km', 'km_per_kwh', 'mi_per_kwh')),
    gas_consumption_unit      TEXT     CHECK (gas_consumption_unit IN ('kg_per_100km', 'km_per_kg')),
    currency                  TEXT     CHECK (length(currency) = 3 AND currency = upper(currency)),
    locale                    TEXT     CHECK (length(locale) BETWEEN 1 AND 128),
    time_zone                 TEXT     CHECK (length(time_zone) BETWEEN 1 AND 64 AND time_zone <> 'Local'),
    updated_at                DATETIME NOT NULL
);

-- Each user's preferences (proto-docs/fuel-decisions.md, "Preferences"):
-- how the clients show quantities, money, dates and the language. NULL is
-- "not chosen yet". One row per user, made by the first PUT; deleting the
-- user deletes it. The service writes only the columns a PUT names, in one
-- INSERT ... ON CONFLICT, so concurrent patches of different fields hold.
CREATE TABLE user_preferences (
    user_id                   bigint      PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    distance_unit             varchar(16) CHECK (distance_unit IN ('km', 'mi')),
    volume_unit               varchar(16) CHECK (volume_unit IN ('l', 'gal_us', 'gal_uk')),
    consumption_unit          varchar(16) CHECK (consumption_unit IN ('l_per_100km', 'km_per_l', 'mpg_us', 'mpg_uk')),
    electric_consumption_unit varchar(16) CHECK (electric_consumption_unit IN ('kwh_per_100km', 'km_per_kwh', 'mi_per_kwh')),
    gas_consumption_unit      varchar(16) CHECK (gas_consumption_unit IN ('kg_per_100km', 'km_per_kg')),
    currency                  varchar(3)  CHECK (currency ~ '^[A-Z]{3}$'),
    locale                    varchar(128) CHECK (locale <> ''),
    time_zone                 varchar(64) CHECK (time_zone <> '' AND time_zone <> 'Local'),
    updated_at                timestamptz NOT NULL
);

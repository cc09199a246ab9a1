-- Expenses (see the PostgreSQL migration of the same version). Decimals
-- are exact text as in refuels; items and tags are JSON array text
-- (SQLite's JSON functions check it).
CREATE TABLE expenses (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    vehicle_id   INTEGER  NOT NULL REFERENCES vehicles (id) ON DELETE CASCADE,
    expense_time DATETIME NOT NULL,
    odometer     TEXT
        CHECK (odometer IS NULL OR (typeof(odometer) = 'text' AND odometer NOT GLOB '*[^0-9.]*'
                                    AND CAST(odometer AS REAL) < 1e11)),
    category     TEXT     NOT NULL
        CHECK (category IN ('service', 'repair', 'tyres', 'inspection', 'insurance', 'tax',
                            'parking', 'toll', 'wash', 'fine', 'accessory', 'other')),
    title        TEXT     NOT NULL CHECK (length(title) <= 200 AND trim(title) <> ''),
    amount       TEXT     NOT NULL
        CHECK (typeof(amount) = 'text' AND amount NOT GLOB '*[^0-9.]*'
               AND CAST(amount AS REAL) < 1e11),
    vendor       TEXT     NOT NULL DEFAULT '' CHECK (length(vendor) <= 128),
    notes        TEXT     NOT NULL DEFAULT '' CHECK (length(notes) <= 2000),
    items        TEXT     NOT NULL DEFAULT '[]' CHECK (json_valid(items) AND json_type(items) = 'array'),
    tags         TEXT     NOT NULL DEFAULT '[]' CHECK (json_valid(tags) AND json_type(tags) = 'array'),
    created_at   DATETIME NOT NULL,
    updated_at   DATETIME NOT NULL
);

CREATE INDEX expenses_vehicle_time ON expenses (vehicle_id, expense_time DESC, id DESC);

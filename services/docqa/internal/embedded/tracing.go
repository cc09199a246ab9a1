package embedded

import "go.opentelemetry.io/otel/attribute"

// dbSystem marks the store's spans ("embedded.Search", ..., one per
// docqa.VectorStore call; the SQL statements inside are not spans of
// their own).
var dbSystem = attribute.String("db.system.name", "docqa-embedded")

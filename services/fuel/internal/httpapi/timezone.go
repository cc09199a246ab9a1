package httpapi

import (
	"time"
	// The zone database ships inside the binary: a host (or a scratch
	// container) without /usr/share/zoneinfo still knows every zone.
	_ "time/tzdata"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/carhub/backend/services/fuel/internal/fuel"
)

// parseZone reads an IANA time zone name (Europe/Berlin, Asia/Shanghai,
// UTC). "Local" and "" are refused: the host's zone is not the owner's.
// The rules are those of the time_zone preference (fuel.ParseTimeZone).
func parseZone(field, name string) (*time.Location, error) {
	return fuel.ParseTimeZone(field, name)
}

// queryZone reads the optional query parameter tz (at most once); when it
// is absent, the zone def returns (the caller's time_zone preference, else
// UTC: API.preferredZone), which is looked up only then.
func queryZone(q map[string][]string, def func() (*time.Location, error)) (*time.Location, error) {
	vs, ok := q["tz"]
	switch {
	case !ok:
		return def()
	case len(vs) > 1:
		return nil, apperr.Invalid("tz", "must be given at most once")
	}
	return parseZone("tz", vs[0])
}

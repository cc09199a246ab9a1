package httpapi

import (
	"time"
	// The zone database ships inside the binary: a host (or a scratch
	// container) without /usr/share/zoneinfo still knows every zone.
	_ "time/tzdata"

	"github.com/carhub/backend/pkg/apperr"
)

// maxZoneName bounds a tz value: the longest IANA name is 32 characters.
const maxZoneName = 64

// parseZone reads an IANA time zone name (Europe/Berlin, Asia/Shanghai,
// UTC). "Local" and "" are refused: the host's zone is not the owner's.
func parseZone(field, name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > maxZoneName {
		return nil, apperr.Invalid(field, "must be an IANA time zone name, like Europe/Berlin or UTC")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, apperr.Invalid(field, "%q is not an IANA time zone name (like Europe/Berlin or UTC)", name)
	}
	return loc, nil
}

// queryZone reads the optional query parameter tz (at most once); UTC when
// absent.
func queryZone(q map[string][]string) (*time.Location, error) {
	vs, ok := q["tz"]
	switch {
	case !ok:
		return time.UTC, nil
	case len(vs) > 1:
		return nil, apperr.Invalid("tz", "must be given at most once")
	}
	return parseZone("tz", vs[0])
}

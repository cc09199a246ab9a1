package httpapi

import (
	"net/url"
	"strconv"
	"time"

	"github.com/carhub/backend/pkg/apperr"
	"github.com/gin-gonic/gin"
)

// pathID reads the :id path parameter (proto-docs/contract.md, "Path ids": 1..MaxUint64).
func pathID(c *gin.Context) (uint64, error) { return parseID("id", c.Param("id")) }

// maxPageSize bounds the limit query parameter.
const maxPageSize = 1000

// listQuery is the query every list of a vehicle's records takes: the
// vehicle (required), the inclusive time range and the page.
type listQuery struct {
	vehicleID     uint64
	start, end    *time.Time
	limit, offset int
}

// queryParam reads a query parameter that may be given at most once.
func queryParam(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, apperr.Invalid(name, "must be given at most once")
	}
	return vs[0], true, nil
}

// readListQuery reads a listQuery. Each parameter may be given once.
func readListQuery(q url.Values) (listQuery, error) {
	var f listQuery
	get := func(name string) (string, bool, error) { return queryParam(q, name) }
	raw, ok, err := get("vehicle_id")
	if err != nil {
		return f, err
	}
	if !ok {
		return f, apperr.Invalid("vehicle_id", "is required")
	}
	if f.vehicleID, err = parseID("vehicle_id", raw); err != nil {
		return f, err
	}
	if f.start, f.end, err = dateRange(q); err != nil {
		return f, err
	}
	if raw, ok, err = get("limit"); err != nil {
		return f, err
	} else if ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPageSize || strconv.Itoa(n) != raw {
			return f, apperr.Invalid("limit", "must be an integer between 1 and %d", maxPageSize)
		}
		f.limit = n
	}
	if raw, ok, err = get("offset"); err != nil {
		return f, err
	} else if ok {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != raw {
			return f, apperr.Invalid("offset", "must be an integer of at least 0")
		}
		f.offset = int(n)
	}
	return f, nil
}

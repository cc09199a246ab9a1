package fuel

import (
	"fmt"

	"github.com/carhub/backend/pkg/apperr"
)

// MaxManuals is the most manuals a vehicle may be linked to: a car's
// owner's manual, its supplements, the radio's and the towbar's, with room.
const MaxManuals = 20

// isMD5 reports whether s is an MD5 digest as docqa names a document: 32
// lowercase hexadecimal digits.
func isMD5(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// manualMD5s checks a vehicle's manual links: at most MaxManuals, each the
// fileMd5 of a docqa document, none twice. Whether docqa still holds the
// document is not fuel's to know (proto-docs/fuel-decisions.md, "Manuals
// of a vehicle"). Every bad entry is named, by its index.
func manualMD5s(md5s []string) error {
	if len(md5s) > MaxManuals {
		return apperr.Invalid("manual_md5s", "must name at most %d manuals (got %d)", MaxManuals, len(md5s))
	}
	var errs []error
	seen := make(map[string]int, len(md5s))
	for i, m := range md5s {
		field := fmt.Sprintf("manual_md5s[%d]", i)
		if !isMD5(m) {
			errs = append(errs, apperr.Invalid(field, "must be a document's fileMd5: 32 lowercase hexadecimal digits"))
			continue
		}
		if first, ok := seen[m]; ok {
			errs = append(errs, apperr.Invalid(field, "repeats manual_md5s[%d]", first))
			continue
		}
		seen[m] = i
	}
	return apperr.Join(errs...)
}

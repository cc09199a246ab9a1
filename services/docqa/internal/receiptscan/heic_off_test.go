//go:build !nodynamic

package receiptscan

import (
	"errors"
	"testing"
)

// Without -tags nodynamic a HEIC photo is told apart and refused by name.
func TestDecodeHEICUnsupported(t *testing.T) {
	if _, f, err := Decode(mustRead(t, "testdata/gen2brain-test8.heic")); f != HEIC || !errors.Is(err, ErrHEICUnsupported) {
		t.Fatalf("Decode: %q, %v; want heic, ErrHEICUnsupported", f, err)
	}
}

package docqa

import (
	"slices"
	"testing"
)

// Rectangles keep four decimals by their edges, stay on the page when
// rounded, and read back what was written; ones off the page read as none.
func TestPackRects(t *testing.T) {
	rects := []Rect{{X: 0.08174, Y: 0.04036, W: 0.31213, H: 0.01207}, {X: 0.99996, Y: 0.5, W: 0.00004, H: 0.01}, {X: 0.1, Y: 0.9, W: 0.2, H: 0.2}}
	packed := PackRects(rects)
	want := [][4]int{{817, 404, 3122, 120}, {10000, 5000, 0, 100}, {1000, 9000, 2000, 1000}}
	if !slices.Equal(packed, want) {
		t.Fatalf("PackRects = %v, want %v", packed, want)
	}
	got := UnpackRects(packed)
	wantBack := []Rect{{X: 0.0817, Y: 0.0404, W: 0.3122, H: 0.012}, {X: 0.1, Y: 0.9, W: 0.2, H: 0.1}}
	if !slices.Equal(got, wantBack) {
		t.Fatalf("UnpackRects = %v, want %v (the empty one left out, the last cut at the page's edge)", got, wantBack)
	}
	if PackRects(nil) != nil || UnpackRects(nil) != nil {
		t.Fatal("no rectangles should pack and unpack to nil")
	}
	for _, bad := range [][4]int{{-1, 0, 10, 10}, {0, -1, 10, 10}, {9000, 0, 1001, 10}, {0, 9995, 10, 10}, {0, 0, 0, 10}, {0, 0, 10, 0}} {
		if got := UnpackRects([][4]int{bad}); got != nil {
			t.Errorf("UnpackRects(%v) = %v, want none", bad, got)
		}
	}
}

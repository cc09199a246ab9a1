package ocrtest

import "testing"

// TestLineBox: a line is found on its own row of words, misread by a
// character or two (and split there), but not across rows, and not when it
// differs by more.
func TestLineBox(t *testing.T) {
	boxes := []Box{
		{Text: "Winterreifen", Left: 0.10, Top: 0.20, Right: 0.30, Bottom: 0.22},
		{Text: "nach", Left: 0.31, Top: 0.20, Right: 0.36, Bottom: 0.22},
		{Text: "sechs", Left: 0.10, Top: 0.23, Right: 0.17, Bottom: 0.25},
		{Text: "Jahre", Left: 0.18, Top: 0.23, Right: 0.25, Bottom: 0.255},
		{Text: "sind,", Left: 0.26, Top: 0.23, Right: 0.32, Bottom: 0.25},
		{Text: "auch", Left: 0.10, Top: 0.26, Right: 0.16, Bottom: 0.28},
	}
	for _, tc := range []struct {
		line string
		want Box
		ok   bool
	}{
		{"sechs Jahre sind,", Box{Left: 0.10, Top: 0.23, Right: 0.32, Bottom: 0.255}, true},
		{"sechs ] ahre sind,", Box{Left: 0.10, Top: 0.23, Right: 0.32, Bottom: 0.255}, true},
		{"Jahre", Box{Left: 0.18, Top: 0.23, Right: 0.25, Bottom: 0.255}, true},
		{"Winterreifen nach", Box{Left: 0.10, Top: 0.20, Right: 0.36, Bottom: 0.22}, true},
		{"nach sechs", Box{}, false},       // two rows
		{"sechs Tage sind,", Box{}, false}, // three edits
		{"Sommerreifen", Box{}, false},     // not there
		{"   ", Box{}, false},
	} {
		got, ok := LineBox(boxes, tc.line)
		if ok != tc.ok {
			t.Errorf("%q: found %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if got.Left != tc.want.Left || got.Top != tc.want.Top || got.Right != tc.want.Right || got.Bottom != tc.want.Bottom || got.Text != tc.line {
			t.Errorf("%q: box %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

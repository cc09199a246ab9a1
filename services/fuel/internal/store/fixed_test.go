package store

import "testing"

func TestParseFixed(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"40", 3, 40000, true},
		{"40.5", 3, 40500, true},
		{"40.000", 3, 40000, true},
		{"1.5000", 4, 15000, true},
		{"0.001", 3, 1, true},
		{"99999999999.999", 3, 99999999999999, true},
		{"-1.25", 3, -1250, true},
		{"1.2340", 3, 1234, true}, // trailing zero past the scale
		{"1.2345", 3, 0, false},
		{"", 3, 0, false},
		{"1e3", 3, 0, false},
		{"1.2.3", 3, 0, false},
		{"99999999999999999999", 3, 0, false},
	}
	for _, tt := range tests {
		got, err := parseFixed([]byte(tt.in), tt.scale)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("parseFixed(%q, %d) = %d, %v; want %d, ok %v", tt.in, tt.scale, got, err, tt.want, tt.ok)
		}
	}
}

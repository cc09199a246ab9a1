package docqa

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestValidMD5(t *testing.T) {
	for s, want := range map[string]bool{
		"d41d8cd98f00b204e9800998ecf8427e":  true,
		"D41D8CD98F00B204E9800998ECF8427E":  false, // stores keep lower case
		"d41d8cd98f00b204e9800998ecf8427":   false,
		"d41d8cd98f00b204e9800998ecf8427e0": false,
		"g41d8cd98f00b204e9800998ecf8427e":  false,
		`d41d8cd98f00b204e9800998ecf842"]`:  false,
	} {
		if got := ValidMD5(s); got != want {
			t.Errorf("ValidMD5(%q) = %v", s, got)
		}
	}
}

func TestCheckUpsert(t *testing.T) {
	const md5 = "d41d8cd98f00b204e9800998ecf8427e"
	doc := Document{Owner: 7, FileMD5: md5}
	vec := func(x float32) []float32 {
		v := make([]float32, Dimension)
		v[0] = x
		return v
	}
	got, err := CheckUpsert(doc, []Chunk{{Index: 0, Embedding: vec(1)}, {ID: "given", Index: 1, Embedding: vec(1)}}, "lexical:v1")
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != OwnedChunkID(7, md5, 0) || got[1].ID != "given" {
		t.Fatalf("ids %q %q", got[0].ID, got[1].ID)
	}

	tests := []struct {
		name     string
		doc      Document
		chunks   []Chunk
		embedder string
		want     string
	}{
		{"bad md5", Document{FileMD5: "x"}, []Chunk{{Embedding: vec(1)}}, "e", "fileMd5"},
		{"no embedder", doc, []Chunk{{Embedding: vec(1)}}, " ", "embedder"},
		{"no chunks", doc, nil, "e", "no chunks"},
		{"negative index", doc, []Chunk{{Index: -1, Embedding: vec(1)}}, "e", "index -1"},
		{"repeated id", doc, []Chunk{{Index: 3, Embedding: vec(1)}, {Index: 3, Embedding: vec(1)}}, "e", "twice"},
		{"short vector", doc, []Chunk{{Embedding: []float32{1}}}, "e", "1 floats"},
		{"NaN", doc, []Chunk{{Embedding: vec(float32(math.NaN()))}}, "e", "NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckUpsert(tt.doc, tt.chunks, tt.embedder)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := CheckUpsert(doc, []Chunk{{Embedding: []float32{1}}}, "e"); !errors.Is(err, ErrDimension) {
		t.Fatalf("short vector: %v does not wrap ErrDimension", err)
	}
}

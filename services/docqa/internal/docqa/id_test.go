package docqa

import "testing"

func TestChunkIDDeterministicAndDistinct(t *testing.T) {
	a := ChunkID("d41d8cd98f00b204e9800998ecf8427e", 0)
	if got := ChunkID("d41d8cd98f00b204e9800998ecf8427e", 0); got != a {
		t.Fatalf("same input gave %q then %q", a, got)
	}
	if len(a) != 36 {
		t.Fatalf("id %q is %d characters, want 36 (doc_id is VarChar(36))", a, len(a))
	}
	seen := map[string]bool{a: true}
	for _, id := range []string{
		ChunkID("d41d8cd98f00b204e9800998ecf8427e", 1),
		ChunkID("0cc175b9c0f1b6a831c399e269772661", 0),
	} {
		if seen[id] {
			t.Fatalf("id %q repeats", id)
		}
		seen[id] = true
	}
}

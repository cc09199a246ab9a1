// Package storetest holds the checks every docqa.VectorStore must pass, run
// by each store's own tests against a real instance of it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// The users of Owners: two of them, and the shared library.
const (
	alice  uint64 = 2
	bob    uint64 = 3
	shared        = docqa.SharedOwner
)

const (
	md5A = "0cc175b9c0f1b6a831c399e269772661" // alice's
	md5B = "92eb5ffee6ae2fec3ad71c777531578f" // bob's
	md5S = "4a8a08f09d37b73795649038408b5f33" // shared
	md5D = "8277e0910d750195b448797616e091ad" // shared, and alice's own copy too
)

// as is ctx acting for user.
func as(user uint64) context.Context {
	return auth.WithIdentity(context.Background(), auth.Identity{UserID: user, Username: fmt.Sprint("user", user), Scope: auth.ScopeWrite})
}

func vec(x, y float32) []float32 {
	v := make([]float32, docqa.Dimension)
	v[0], v[1] = x, y
	return v
}

type stored struct {
	doc    docqa.Document
	chunks []docqa.Chunk
}

func document(owner uint64, md5 string, created time.Time, texts []string, v []float32) stored {
	doc := docqa.Document{FileName: md5[:4] + ".pdf", FileMD5: md5, Size: 100, Pages: len(texts), Chunks: len(texts), CreatedAt: created}.Owned(owner)
	chunks := make([]docqa.Chunk, len(texts))
	for i, text := range texts {
		// Each later chunk a little further from v: no ties in a search.
		e := slices.Clone(v)
		e[2] = -0.01 * float32(i)
		chunks[i] = docqa.Chunk{ID: docqa.OwnedChunkID(owner, md5, i), Page: i + 1, Index: i, Text: text, Embedding: e}
	}
	return stored{doc, chunks}
}

type key struct {
	owner uint64
	md5   string
}

func keys(docs []docqa.Document) []key {
	out := make([]key, len(docs))
	for i, d := range docs {
		out[i] = key{d.Owner, d.FileMD5}
	}
	return out
}

func hitIDs(hits []docqa.ScoredChunk) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Chunk.ID
	}
	return out
}

// Owners checks that a store keeps each user's documents to them and the
// shared library's to everyone, inside its queries: listing, reading,
// vector and lexical search (TopK counts only what the reader may read),
// a user's own copy shadowing the shared one, and deletes of one owner's
// copy. open returns an empty store; SearchText is checked when the store
// keeps a lexical index.
func Owners(t *testing.T, open func(t *testing.T) docqa.VectorStore) {
	s := open(t)
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	// Alice's chunks are the best match of the x direction for anyone; a
	// filter applied after the search would leave bob with nothing.
	docs := []stored{
		document(alice, md5A, t0, []string{"alternator belt tension", "alternator belt wear", "alternator pulley"}, vec(1, 0)),
		document(bob, md5B, t0.Add(time.Minute), []string{"brake fluid level", "brake pad wear", "brake disc"}, vec(0.8, 0.6)),
		document(shared, md5S, t0.Add(2*time.Minute), []string{"wiper blade change", "wiper fluid"}, vec(0, 1)),
		document(shared, md5D, t0.Add(3*time.Minute), []string{"coolant shared copy", "coolant mix"}, vec(0.6, 0.8)),
		document(alice, md5D, t0.Add(4*time.Minute), []string{"coolant shared copy", "coolant mix"}, vec(0.6, 0.8)),
	}
	for _, d := range docs {
		if err := s.Upsert(context.Background(), d.doc, d.chunks, "test:v1"); err != nil {
			t.Fatalf("Upsert %s of %d: %v", d.doc.FileMD5, d.doc.Owner, err)
		}
	}

	t.Run("Documents", func(t *testing.T) {
		for _, tc := range []struct {
			user uint64
			want []key
		}{
			// Newest first; alice's copy of D hides the shared one.
			{alice, []key{{alice, md5D}, {shared, md5S}, {alice, md5A}}},
			{bob, []key{{shared, md5D}, {shared, md5S}, {bob, md5B}}},
			{auth.BuiltinUserID, []key{{shared, md5D}, {shared, md5S}}},
		} {
			got, err := s.Documents(as(tc.user))
			if err != nil || !slices.Equal(keys(got), tc.want) {
				t.Errorf("Documents of user %d = %v, %v; want %v", tc.user, keys(got), err, tc.want)
			}
			for _, d := range got {
				if d.Shared != (d.Owner == shared) {
					t.Errorf("document %v: Shared %v", key{d.Owner, d.FileMD5}, d.Shared)
				}
			}
		}
	})

	t.Run("Document", func(t *testing.T) {
		for _, tc := range []struct {
			user  uint64
			md5   string
			owner uint64 // the copy read; none when missing
			found bool
		}{
			{alice, md5A, alice, true},
			{bob, md5A, 0, false}, // another user's: not found, as if absent
			{bob, md5B, bob, true},
			{alice, md5B, 0, false},
			{alice, md5D, alice, true}, // her own copy before the shared one
			{bob, md5D, shared, true},
			{bob, md5S, shared, true},
		} {
			d, err := s.Document(as(tc.user), tc.md5)
			switch {
			case !tc.found && !errors.Is(err, docqa.ErrNotFound):
				t.Errorf("Document(%s) of user %d = %+v, %v; want ErrNotFound", tc.md5, tc.user, d, err)
			case tc.found && (err != nil || d.Owner != tc.owner || d.FileMD5 != tc.md5):
				t.Errorf("Document(%s) of user %d = %+v, %v; want the copy of %d", tc.md5, tc.user, d, err, tc.owner)
			}
		}
	})

	t.Run("Search", func(t *testing.T) {
		// Bob asks along x with TopK 2: his two brake chunks, though
		// alice's three alternator chunks score higher.
		hits, err := s.Search(as(bob), vec(1, 0), docqa.Query{TopK: 2})
		want := []string{docqa.OwnedChunkID(bob, md5B, 0), docqa.OwnedChunkID(bob, md5B, 1)}
		if err != nil || !slices.Equal(hitIDs(hits), want) {
			t.Errorf("bob's search = %v, %v; want %v", hitIDs(hits), err, want)
		}
		// Alice along the coolant direction: her copy of D, never the
		// shared copy's chunks (the same text twice), then the rest.
		hits, err = s.Search(as(alice), vec(0.6, 0.8), docqa.Query{TopK: 4})
		want = []string{docqa.OwnedChunkID(alice, md5D, 0), docqa.OwnedChunkID(alice, md5D, 1)}
		if err != nil || len(hits) != 4 || !slices.Equal(hitIDs(hits)[:2], want) {
			t.Fatalf("alice's search = %v, %v; want %v first, 4 in all", hitIDs(hits), err, want)
		}
		for _, h := range hits {
			if h.Document.Owner == shared && h.Document.FileMD5 == md5D || h.Document.Owner == bob {
				t.Errorf("alice's search returned %s of %d", h.Document.FileMD5, h.Document.Owner)
			}
		}
		// Naming another user's document finds nothing of it.
		hits, err = s.Search(as(bob), vec(1, 0), docqa.Query{TopK: 5, Documents: []string{md5A}})
		if err != nil || len(hits) != 0 {
			t.Errorf("bob's search of alice's document = %v, %v; want none", hitIDs(hits), err)
		}
	})

	if s.LexicalIndex() {
		t.Run("SearchText", func(t *testing.T) {
			hits, err := s.SearchText(as(bob), "alternator", docqa.Query{TopK: 5})
			if err != nil || len(hits) != 0 {
				t.Errorf("bob's text search for alice's word = %v, %v; want none", hitIDs(hits), err)
			}
			hits, err = s.SearchText(as(alice), "alternator belt", docqa.Query{TopK: 2})
			want := []string{docqa.OwnedChunkID(alice, md5A, 0), docqa.OwnedChunkID(alice, md5A, 1)}
			if err != nil || !slices.Equal(hitIDs(hits), want) {
				t.Errorf("alice's text search = %v, %v; want %v", hitIDs(hits), err, want)
			}
			hits, err = s.SearchText(as(alice), "coolant", docqa.Query{TopK: 5})
			want = []string{docqa.OwnedChunkID(alice, md5D, 0), docqa.OwnedChunkID(alice, md5D, 1)}
			if err != nil || !slices.Equal(slices.Sorted(slices.Values(hitIDs(hits))), slices.Sorted(slices.Values(want))) {
				t.Errorf("alice's text search for coolant = %v, %v; want her copy's %v only", hitIDs(hits), err, want)
			}
			hits, err = s.SearchText(as(bob), "coolant", docqa.Query{TopK: 5})
			want = []string{docqa.OwnedChunkID(shared, md5D, 0), docqa.OwnedChunkID(shared, md5D, 1)}
			if err != nil || !slices.Equal(slices.Sorted(slices.Values(hitIDs(hits))), slices.Sorted(slices.Values(want))) {
				t.Errorf("bob's text search for coolant = %v, %v; want the shared copy's %v", hitIDs(hits), err, want)
			}
		})
	}

	t.Run("Owners and Delete", func(t *testing.T) {
		if got, err := s.Owners(context.Background(), md5D); err != nil || !slices.Equal(got, []uint64{shared, alice}) {
			t.Fatalf("Owners(D) = %v, %v", got, err)
		}
		// Bob uploads alice's file: his own copy, hers untouched.
		a := document(bob, md5A, t0.Add(5*time.Minute), []string{"alternator belt tension", "alternator belt wear", "alternator pulley"}, vec(1, 0))
		if err := s.Upsert(context.Background(), a.doc, a.chunks, "test:v1"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Owners(context.Background(), md5A); err != nil || !slices.Equal(got, []uint64{alice, bob}) {
			t.Fatalf("Owners(A) = %v, %v", got, err)
		}
		if err := s.Delete(context.Background(), bob, md5S); !errors.Is(err, docqa.ErrNotFound) {
			t.Errorf("Delete of a copy bob does not hold = %v, want ErrNotFound", err)
		}
		if err := s.Delete(context.Background(), bob, md5A); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(as(alice), vec(1, 0), docqa.Query{TopK: 3})
		want := []string{docqa.OwnedChunkID(alice, md5A, 0), docqa.OwnedChunkID(alice, md5A, 1), docqa.OwnedChunkID(alice, md5A, 2)}
		if err != nil || !slices.Equal(hitIDs(hits), want) {
			t.Errorf("alice's search after bob deleted his copy = %v, %v; want %v", hitIDs(hits), err, want)
		}
		// Alice deletes her copy of D: the shared one is hers to read again.
		if err := s.Delete(context.Background(), alice, md5D); err != nil {
			t.Fatal(err)
		}
		if d, err := s.Document(as(alice), md5D); err != nil || d.Owner != shared {
			t.Errorf("Document(D) of alice after her delete = %+v, %v; want the shared copy", d, err)
		}
		if got, err := s.Owners(context.Background(), md5D); err != nil || !slices.Equal(got, []uint64{shared}) {
			t.Errorf("Owners(D) after alice's delete = %v, %v", got, err)
		}
		hits, err = s.Search(as(alice), vec(0.6, 0.8), docqa.Query{TopK: 2})
		want = []string{docqa.OwnedChunkID(shared, md5D, 0), docqa.OwnedChunkID(shared, md5D, 1)}
		if err != nil || !slices.Equal(hitIDs(hits), want) {
			t.Errorf("alice's search after her delete = %v, %v; want %v", hitIDs(hits), err, want)
		}
	})
}

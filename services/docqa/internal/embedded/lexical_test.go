package embedded

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// seedManuals stores three small "manuals": gnuplot (title from the PDF),
// octave (title from its file name) and a Chinese one.
func seedManuals(tb testing.TB, s *Store) {
	tb.Helper()
	gnuplot := newDoc(md5A, "gp.pdf", t0, 3)
	gnuplot.Title = "Gnuplot Reference"
	mustUpsert(tb, s, gnuplot, []docqa.Chunk{
		{ID: docqa.ChunkID(md5A, 0), Page: 1, Index: 0, Heading: "Introduction", Text: "The program draws plots of functions and data.", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 1), Page: 2, Index: 1, Heading: "set dgrid3d", Text: "The dgrid3d option maps scattered data onto a grid before a surface is drawn.", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 2), Page: 3, Index: 2, Heading: "Plotting", Text: "Functions are plotted with plot; data files are plotted the same way.", Embedding: vec(1)},
	}, "lexical:v1")
	mustUpsert(tb, s, newDoc(md5B, "octave_manual.pdf", t0.Add(1), 2), []docqa.Chunk{
		{ID: docqa.ChunkID(md5B, 0), Page: 1, Index: 0, Text: "Plot a function with plot. Data are plotted the same way.", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5B, 1), Page: 7, Index: 1, Text: "Matrices are created with square brackets.", Embedding: vec(1)},
	}, "lexical:v1")
	mustUpsert(tb, s, newDoc(md5C, "car.pdf", t0.Add(2), 2), []docqa.Chunk{
		{ID: docqa.ChunkID(md5C, 0), Page: 4, Index: 0, Text: "每行驶五千公里更换一次机油。", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5C, 1), Page: 5, Index: 1, Text: "轮胎气压应在冷车时检查。", Embedding: vec(1)},
	}, "lexical:v1")
}

type place struct {
	md5  string
	page int
}

func placesOf(hits []docqa.ScoredChunk) []place {
	out := make([]place, len(hits))
	for i, h := range hits {
		out[i] = place{h.Document.FileMD5, h.Chunk.Page}
	}
	return out
}

func TestSearchTextRanking(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seedManuals(t, s)
	for _, tc := range []struct {
		name     string
		question string
		q        docqa.Query
		want     []place
	}{
		// The rare term wins, and its heading match adds to its text match.
		{"rare term", "What does the dgrid3d option do?", docqa.Query{TopK: 3}, []place{{md5A, 2}}},
		// "plot" and "data" are in four chunks; the title "octave_manual"
		// (the file name) puts Octave's plotting page first.
		{"title lifts its manual", "In Octave, how do I plot data?", docqa.Query{TopK: 2}, []place{{md5B, 1}, {md5A, 3}}},
		{"title from PDF metadata", "gnuplot functions", docqa.Query{TopK: 1}, []place{{md5A, 1}}},
		// Porter stemming: "plotting" meets "plotted", "plot" and "plots".
		{"stemming", "plotting", docqa.Query{TopK: 10}, []place{{md5A, 3}, {md5B, 1}, {md5A, 1}}},
		{"chinese by character pairs", "多久换一次机油？", docqa.Query{TopK: 10}, []place{{md5C, 4}}},
		{"chinese other page", "轮胎气压", docqa.Query{TopK: 10}, []place{{md5C, 5}}},
		{"no term", "the of and?", docqa.Query{TopK: 10}, []place{}},
		{"no match", "carburettor", docqa.Query{TopK: 10}, []place{}},
		// Limited to one document inside the query: its best chunks come
		// back up to TopK though better ones exist elsewhere.
		{"documents filter", "plotted data functions", docqa.Query{TopK: 2, Documents: []string{md5A}}, []place{{md5A, 3}, {md5A, 1}}},
		{"documents filter two", "plotted data", docqa.Query{TopK: 5, Documents: []string{md5C, md5B}}, []place{{md5B, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.SearchText(context.Background(), tc.question, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(placesOf(got), tc.want) {
				t.Fatalf("got %v, want %v", placesOf(got), tc.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i].Score > got[i-1].Score {
					t.Fatalf("scores not descending: %v", got)
				}
			}
			for _, h := range got {
				if h.Score <= 0 || h.Chunk.Text == "" || h.Document.FileName == "" {
					t.Fatalf("hit without score, text or document: %+v", h)
				}
			}
		})
	}
}

func TestSearchWithDocumentsFilter(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seed(t, s)
	got, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 2, Documents: []string{md5B, md5B, md5C}})
	if err != nil {
		t.Fatal(err)
	}
	// B's two chunks, though A's are closer to the query.
	if want := []want{{"along y", 0}, {"against x", -1}}; !sameHits(hitsOf(got), want) {
		t.Fatalf("got %v, want %v", hitsOf(got), want)
	}
}

func TestLexicalIndexFollowsWrites(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, dir)
	seedManuals(t, s)
	ctx := context.Background()
	search := func(question string) []place {
		t.Helper()
		got, err := s.SearchText(ctx, question, docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		return placesOf(got)
	}

	// Replacing a chunk replaces its index row: the old words are gone.
	mustUpsert(t, s, newDoc(md5B, "octave_manual.pdf", t0.Add(1), 2), []docqa.Chunk{
		{ID: docqa.ChunkID(md5B, 1), Page: 7, Index: 1, Text: "Cell arrays hold values of any type.", Embedding: vec(1)},
	}, "lexical:v1")
	if got := search("square brackets"); len(got) != 0 {
		t.Fatalf("replaced text still found: %v", got)
	}
	if got, want := search("cell arrays"), []place{{md5B, 7}}; !slices.Equal(got, want) {
		t.Fatalf("new text: got %v, want %v", got, want)
	}

	if err := s.Delete(ctx, 1, md5C); err != nil {
		t.Fatal(err)
	}
	if got := search("机油"); len(got) != 0 {
		t.Fatalf("deleted document still found: %v", got)
	}

	// After a restart the index answers the same.
	before := search("plotted data")
	s.Close()
	s = mustOpen(t, dir)
	if got := search("plotted data"); !slices.Equal(got, before) || len(got) != 4 {
		t.Fatalf("after restart %v, before %v", got, before)
	}
}

// A database of the first schema (no titles, no headings) opens, and its
// chunks are found by their words; the file name stands for the title.
func TestSearchTextOnFirstSchemaDatabase(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{migrations[0], `PRAGMA user_version = 1`,
		`INSERT INTO documents VALUES ('` + md5A + `', 'gnuplot_manual.pdf', 10, 1, 1, 0, '2026-01-01T00:00:00Z', 'lexical:v1')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO chunks VALUES (?, ?, 1, 0, 'Surfaces are drawn by splot.', ?)`,
		docqa.ChunkID(md5A, 0), md5A, encodeVector(vec(1))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := mustOpen(t, dir)
	for _, question := range []string{"splot surfaces", "gnuplot"} {
		got, err := s.SearchText(context.Background(), question, docqa.Query{TopK: 3})
		if err != nil || !slices.Equal(placesOf(got), []place{{md5A, 1}}) {
			t.Fatalf("%q: %v, %v", question, placesOf(got), err)
		}
	}
}

func TestSearchTextInvalidAndClosed(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	seedManuals(t, s)
	if _, err := s.SearchText(context.Background(), "plot", docqa.Query{TopK: 0}); err == nil {
		t.Fatal("topK 0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SearchText(ctx, "plot", docqa.Query{TopK: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	s.Close()
	if _, err := s.SearchText(context.Background(), "plot", docqa.Query{TopK: 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed: %v", err)
	}
}

// TestSearchTextPages: the lexical index groups chunks into pages by
// document and page number. A's pages 1 and 2 hold "oil" in equal chunks;
// page 2's other chunk holds "filter", which lifts page 2's "oil" chunk
// above page 1's (equal otherwise, page 1 would come first). B's page 2
// holds "brake" and "spring" in one chunk beside A's page 2 in the index:
// it is another document's page and lifts nothing of A's.
func TestSearchTextPages(t *testing.T) {
	s := mustOpen(t, t.TempDir())
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 3), []docqa.Chunk{
		{ID: docqa.ChunkID(md5A, 0), Page: 1, Index: 0, Text: "oil pump", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 1), Page: 2, Index: 1, Text: "oil sump", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 2), Page: 2, Index: 2, Text: "filter cover", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 3), Page: 3, Index: 3, Text: "brake shoe", Embedding: vec(1)},
		{ID: docqa.ChunkID(md5A, 4), Page: 4, Index: 4, Text: "brake drum", Embedding: vec(1)},
	}, "lexical:v1")
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0, 1), []docqa.Chunk{
		{ID: docqa.ChunkID(md5B, 0), Page: 4, Index: 0, Text: "spring clip", Embedding: vec(1)},
	}, "lexical:v1")
	for _, tc := range []struct {
		question string
		want     []place
	}{
		{"oil filter", []place{{md5A, 2}, {md5A, 2}, {md5A, 1}}},
		// A's page 4 and B's page 4 are two pages: A's brake chunks stay
		// in document order.
		{"brake spring", []place{{md5B, 4}, {md5A, 3}, {md5A, 4}}},
	} {
		got, err := s.SearchText(context.Background(), tc.question, docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(placesOf(got), tc.want) {
			t.Fatalf("%q: got %v, want %v", tc.question, placesOf(got), tc.want)
		}
	}
}

// Command retrievalbench measures how often retrieval finds the page that
// holds a question's answer: it ingests real manuals through the service's
// own pipeline (PDFium, the splitter, the configured embedder, the embedded
// store), asks every question of a question set in each retrieval mode, and
// reports hit@1, hit@5, hit@10 and MRR@10 beside a plain BM25 baseline
// (SQLite FTS5 with its default tokenizer, one row per page) computed in the
// same run over the same extracted pages.
//
//	retrievalbench -manuals testdata/retrieval/manuals.json -questions testdata/retrieval/questions.json
//
// A question is a hit at k when one of the first k sources (chunks, as the
// chat stream sends them) lies on one of its answer pages; the baseline
// ranks pages. "Wrong manual first" counts questions whose first source is
// in another manual than the answer's. With EMBEDDING_BASE_URL set (and
// EMBEDDING_API_KEY, EMBEDDING_MODEL) the vector ranking uses that model;
// otherwise the local lexical embedder, the service's default.
package main

import (
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	_ "modernc.org/sqlite"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/ingest"
	"github.com/carhub/backend/services/docqa/internal/pdftext"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
	"github.com/carhub/backend/services/docqa/internal/splitter"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "retrievalbench:", err)
		os.Exit(1)
	}
}

type manual struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Gzip   bool   `json:"gzip"`
	Pages  int    `json:"pages"`
	Lang   string `json:"lang"`
	SHA256 string `json:"sha256"`
}

type question struct {
	ID       string `json:"id"`
	Manual   string `json:"manual"`
	Lang     string `json:"lang"`
	Kind     string `json:"kind"`
	Split    string `json:"split"`
	Question string `json:"question"`
	Pages    []int  `json:"pages"`
}

// result is where one question's answer was found: the 1-based rank of the
// first source on an answer page (0: not in the first ten), and whether the
// first source was in another manual.
type result struct {
	rank        int
	wrongManual bool
	took        time.Duration
}

const depth = 10

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("retrievalbench", flag.ContinueOnError)
	manualsPath := fs.String("manuals", "testdata/retrieval/manuals.json", "the manuals (JSON)")
	questionsPath := fs.String("questions", "testdata/retrieval/questions.json", "the questions (JSON)")
	split := fs.String("split", "all", "the questions asked: dev, test or all")
	modes := fs.String("modes", "lexical,vector,hybrid", "retrieval modes to measure")
	storeDir := fs.String("store", "", "embedded store directory to keep between runs (default: a temporary one)")
	cacheDir := fs.String("pdf-cache", "var/pdfium-cache", "the PDF engine's compilation cache")
	lexicalWeight := fs.Float64("lexical-weight", retrieval.DefaultLexicalWeight, "RRF weight of the lexical ranking")
	vectorWeight := fs.Float64("vector-weight", retrieval.DefaultVectorWeight, "RRF weight of the vector ranking")
	rrfK := fs.Int("rrf-k", retrieval.DefaultK, "RRF constant")
	keepNavigation := fs.Bool("keep-navigation", false, "leave table-of-contents and index chunks where the rankings put them")
	verbose := fs.Bool("v", false, "list every question that hybrid retrieval misses at 10")
	ranksPath := fs.String("ranks", "", "write each question's rank in each row to this file (tab-separated: row, question, rank, first source; rank 0 is a miss at 10), to compare runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var manuals []manual
	var questions []question
	if err := readJSON(*manualsPath, &manuals); err != nil {
		return err
	}
	if err := readJSON(*questionsPath, &questions); err != nil {
		return err
	}
	if *split != "all" {
		questions = slices.DeleteFunc(questions, func(q question) bool { return q.Split != *split })
	}
	if len(questions) == 0 {
		return fmt.Errorf("no questions of split %q", *split)
	}

	dir := *storeDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "retrievalbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	store, err := embedded.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		return err
	}
	defer store.Close()
	embedder, err := newEmbedder(getenv)
	if err != nil {
		return err
	}
	pdf := pdftext.Start(pdftext.Config{Instances: 2, CacheDir: *cacheDir})
	defer pdf.Close()
	split2, err := splitter.New()
	if err != nil {
		return err
	}
	pipe, err := ingest.New(ingest.Config{Store: store, Embedder: embedder, Splitter: split2, Extractor: pdf, TempDir: filepath.Join(dir, "uploads"), Concurrency: 1})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "uploads"), 0o700); err != nil {
		return err
	}

	// Ingest every manual (a stored one is a duplicate, answered at once),
	// and build the baseline's page index from the same extraction.
	baseline, err := newBaseline()
	if err != nil {
		return err
	}
	defer baseline.Close()
	md5s := map[string]string{} // manual id -> fileMd5
	manualOf := map[string]string{}
	var pages, chunks int
	var ingestTime time.Duration
	for _, m := range manuals {
		path, cleanup, err := openManual(m)
		if err != nil {
			return err
		}
		doc, took, err := ingestFile(ctx, pipe, path)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %w", m.ID, err)
		}
		if !doc.Duplicate {
			pages, chunks, ingestTime = pages+doc.Pages, chunks+doc.Chunks, ingestTime+took
		}
		err = baseline.add(ctx, pdf, m.ID, path)
		cleanup()
		if err != nil {
			return fmt.Errorf("%s: baseline: %w", m.ID, err)
		}
		md5s[m.ID], manualOf[doc.FileMD5] = doc.FileMD5, m.ID
		fmt.Fprintf(os.Stderr, "%-12s %5d pages %5d chunks  title %q\n", m.ID, doc.Pages, doc.Chunks, doc.DisplayTitle())
	}
	for _, q := range questions {
		if md5s[q.Manual] == "" {
			return fmt.Errorf("question %s: unknown manual %q", q.ID, q.Manual)
		}
	}

	fmt.Fprintf(out, "%d manuals, %d questions (split %s), embedder %s\n", len(manuals), len(questions), *split, embedder.Name())
	if ingestTime > 0 {
		fmt.Fprintf(out, "ingestion: %d pages, %d chunks in %s (%.0f pages/s, extraction, splitting, embedding and storing)\n\n",
			pages, chunks, ingestTime.Round(time.Millisecond), float64(pages)/ingestTime.Seconds())
	}

	type row struct {
		name    string
		results []result
	}
	var rows []row
	base := make([]result, len(questions))
	firsts := map[string][]place{} // row -> each question's first source
	for i, q := range questions {
		start := time.Now()
		ranked, err := baseline.search(ctx, q.Question)
		if err != nil {
			return err
		}
		base[i] = score(q, ranked, start)
		firsts["bm25"] = append(firsts["bm25"], first(ranked))
	}
	rows = append(rows, row{"BM25 baseline (FTS5 unicode61, pages)", base})

	var missed []string
	var ranks strings.Builder
	for _, name := range strings.Split(*modes, ",") {
		mode, err := retrieval.ParseMode(name)
		if err != nil {
			return err
		}
		r, err := retrieval.New(retrieval.Config{Store: store, Embedder: embedder, Mode: mode,
			K: *rrfK, LexicalWeight: *lexicalWeight, VectorWeight: *vectorWeight, KeepNavigation: *keepNavigation, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			return err
		}
		res := make([]result, len(questions))
		for i, q := range questions {
			start := time.Now()
			hits, err := r.Retrieve(ctx, q.Question, docqa.Query{TopK: depth})
			if err != nil {
				return fmt.Errorf("%s: %w", q.ID, err)
			}
			ranked := make([]place, len(hits))
			for j, h := range hits {
				ranked[j] = place{manualOf[h.Document.FileMD5], h.Chunk.Page}
			}
			res[i] = score(q, ranked, start)
			firsts[string(mode)] = append(firsts[string(mode)], first(ranked))
			if mode == retrieval.Hybrid && res[i].rank == 0 {
				missed = append(missed, fmt.Sprintf("%s %v: %s -> %v", q.ID, q.Pages, q.Question, ranked[:min(3, len(ranked))]))
			}
		}
		rows = append(rows, row{string(mode), res})
	}

	if *ranksPath != "" {
		for _, r := range rows {
			name := strings.SplitN(r.name, " ", 2)[0]
			key := name
			if name == "BM25" {
				key = "bm25"
			}
			for i, q := range questions {
				f := firsts[key][i]
				fmt.Fprintf(&ranks, "%s\t%s\t%d\t%s:%d\n", key, q.ID, r.results[i].rank, f.manual, f.page)
			}
		}
		if err := os.WriteFile(*ranksPath, []byte(ranks.String()), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "| retrieval | hit@1 | hit@5 | hit@10 | MRR@10 | wrong manual first | p50 |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s |\n", r.name, summary(r.results))
	}
	// By language and by kind of question, hit@5 of each row.
	for _, by := range []struct {
		name string
		key  func(question) string
	}{{"language", func(q question) string { return q.Lang }}, {"kind", func(q question) string { return q.Kind }}} {
		groups := map[string][]int{}
		for i, q := range questions {
			groups[by.key(q)] = append(groups[by.key(q)], i)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range groups {
				if !yield(k) {
					return
				}
			}
		})
		fmt.Fprintf(out, "\nhit@5 by %s:\n\n| %s | n |", by.name, by.name)
		for _, r := range rows {
			fmt.Fprintf(out, " %s |", strings.SplitN(r.name, " ", 2)[0])
		}
		fmt.Fprintf(out, "\n|---|---|%s\n", strings.Repeat("---|", len(rows)))
		for _, k := range keys {
			fmt.Fprintf(out, "| %s | %d |", k, len(groups[k]))
			for _, r := range rows {
				var sub []result
				for _, i := range groups[k] {
					sub = append(sub, r.results[i])
				}
				fmt.Fprintf(out, " %.2f |", hitAt(sub, 5))
			}
			fmt.Fprintln(out)
		}
	}
	if *verbose {
		fmt.Fprintf(out, "\nhybrid misses at %d:\n", depth)
		for _, m := range missed {
			fmt.Fprintln(out, "  "+m)
		}
	}
	return nil
}

type place struct {
	manual string
	page   int
}

// first is a ranking's first source, the zero place when it is empty.
func first(ranked []place) place {
	if len(ranked) == 0 {
		return place{}
	}
	return ranked[0]
}

func score(q question, ranked []place, start time.Time) result {
	r := result{took: time.Since(start)}
	if len(ranked) > 0 && ranked[0].manual != q.Manual {
		r.wrongManual = true
	}
	for i, p := range ranked[:min(depth, len(ranked))] {
		if p.manual == q.Manual && slices.Contains(q.Pages, p.page) {
			r.rank = i + 1
			break
		}
	}
	return r
}

func hitAt(res []result, k int) float64 {
	n := 0
	for _, r := range res {
		if r.rank > 0 && r.rank <= k {
			n++
		}
	}
	return float64(n) / float64(len(res))
}

func summary(res []result) string {
	var mrr float64
	wrong := 0
	took := make([]time.Duration, len(res))
	for i, r := range res {
		if r.rank > 0 {
			mrr += 1 / float64(r.rank)
		}
		if r.wrongManual {
			wrong++
		}
		took[i] = r.took
	}
	slices.Sort(took)
	return fmt.Sprintf("%.2f | %.2f | %.2f | %.2f | %d | %s", hitAt(res, 1), hitAt(res, 5), hitAt(res, 10),
		mrr/float64(len(res)), wrong, took[len(took)/2].Round(10*time.Microsecond))
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// openManual returns the path of the manual's PDF, unpacked to a temporary
// file when it is installed gzipped, after checking its SHA-256.
func openManual(m manual) (path string, cleanup func(), err error) {
	f, err := os.Open(m.Path)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w (install the packages listed in testdata/retrieval/README.md)", m.ID, err)
	}
	defer f.Close()
	var r io.Reader = f
	if m.Gzip {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", m.Path, err)
		}
		r = zr
	}
	// The file keeps its installed name: it is the document's name (and
	// title, when the PDF has none) in the store.
	dir, err := os.MkdirTemp("", "manual-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	tmp, err := os.Create(filepath.Join(dir, strings.TrimSuffix(filepath.Base(m.Path), ".gz")))
	if err != nil {
		cleanup()
		return "", nil, err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && m.SHA256 != "" && hex.EncodeToString(h.Sum(nil)) != m.SHA256 {
		err = fmt.Errorf("%s: SHA-256 %x, the question set was written for %s", m.Path, h.Sum(nil), m.SHA256)
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return tmp.Name(), cleanup, nil
}

func ingestFile(ctx context.Context, pipe *ingest.Pipeline, path string) (ingest.Result, time.Duration, error) {
	start := time.Now()
	t, err := pipe.Admit()
	if err != nil {
		return ingest.Result{}, 0, err
	}
	defer t.Release()
	f, err := os.Open(path)
	if err != nil {
		return ingest.Result{}, 0, err
	}
	defer f.Close()
	up, err := pipe.Receive(f, filepath.Base(path))
	if err != nil {
		return ingest.Result{}, 0, err
	}
	defer up.Close()
	res, err := pipe.Process(ctx, t, up, nil)
	return res, time.Since(start), err
}

func newEmbedder(getenv func(string) string) (docqa.Embedder, error) {
	base := getenv("EMBEDDING_BASE_URL")
	if base == "" {
		return provider.NewLexicalEmbedder(), nil
	}
	return provider.NewEmbedder(provider.EmbedderConfig{BaseURL: base, APIKey: getenv("EMBEDDING_API_KEY"),
		Model: cmp.Or(getenv("EMBEDDING_MODEL"), provider.DefaultEmbeddingModel)})
}

// baseline is plain BM25 over whole pages: SQLite FTS5 with its default
// tokenizer (unicode61: no stemming, a run of Chinese or Japanese is one
// token), the question's words joined by OR.
type baseline struct{ db *sql.DB }

func newBaseline() (*baseline, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE pages USING fts5 (manual UNINDEXED, page UNINDEXED, body)`); err != nil {
		db.Close()
		return nil, err
	}
	return &baseline{db: db}, nil
}

func (b *baseline) Close() error { return b.db.Close() }

func (b *baseline) add(ctx context.Context, pdf *pdftext.Engine, id, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	doc, err := pdf.Extract(ctx, f, fi.Size(), nil)
	if err != nil {
		return err
	}
	tx, err := b.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, p := range doc.Pages {
		if _, err := tx.Exec(`INSERT INTO pages (manual, page, body) VALUES (?, ?, ?)`, id, p.Number, p.Text); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (b *baseline) search(ctx context.Context, q string) ([]place, error) {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	if len(words) == 0 {
		return nil, nil
	}
	rows, err := b.db.QueryContext(ctx, `SELECT manual, page FROM pages WHERE pages MATCH ? ORDER BY rank LIMIT ?`,
		strings.Join(words, " OR "), depth)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []place
	for rows.Next() {
		var p place
		if err := rows.Scan(&p.manual, &p.page); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

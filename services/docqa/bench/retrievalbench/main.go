// Command retrievalbench measures how often retrieval finds the page that
// holds a question's answer: it ingests real manuals through the service's
// own pipeline (PDFium, the splitter, the configured embedder, the embedded
// store), asks every question of a question set in every retrieval mode, and
// reports hit@1, hit@5, hit@10 and MRR@10 side by side, beside a plain BM25
// baseline (SQLite FTS5 with its default tokenizer, one row per page)
// computed in the same run over the same extracted pages, and beside the
// oracle of the modes: each question's best rank over them, the ceiling of
// any choice among them. Then hit@5 and MRR@10 by language, by the question
// set's kind and by class (whether routed retrieval takes the question to
// name an identifier). -sweep adds the grid the convex defaults were chosen
// from (tune on -split dev only).
//
//	nice retrievalbench -split dev -store /tmp/rb-store > dev.txt
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
	"maps"
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
	modes := fs.String("modes", joinModes(retrieval.Modes), "retrieval modes to measure, side by side")
	storeDir := fs.String("store", "", "embedded store directory to keep between runs (default: a temporary one)")
	cacheDir := fs.String("pdf-cache", "var/pdfium-cache", "the PDF engine's compilation cache")
	lexicalWeight := fs.Float64("lexical-weight", retrieval.DefaultLexicalWeight, "RRF weight of the lexical ranking")
	vectorWeight := fs.Float64("vector-weight", retrieval.DefaultVectorWeight, "RRF weight of the vector ranking")
	rrfK := fs.Int("rrf-k", retrieval.DefaultK, "RRF constant")
	normalization := fs.String("normalization", string(retrieval.DefaultNormalization), "score normalization of convex fusion: minmax or zscore")
	lexicalShare := fs.Float64("lexical-share", retrieval.DefaultLexicalShare, "convex fusion: the lexical ranking's share, in (0, 1]")
	anchorDepth := fs.Int("anchor-depth", retrieval.DefaultAnchorDepth, "anchored: the lexical ranking's first chunks kept first")
	routeOther := fs.String("route-other", string(retrieval.DefaultRouteOther), "routed: the mode of questions that name no identifier")
	sweep := fs.Bool("sweep", false, "also measure convex fusion at every lexical share from 0.05 to 1 by 0.05, with each normalization, and routed with each; anchored at depths 1 to 5")
	keepNavigation := fs.Bool("keep-navigation", false, "leave table-of-contents and index chunks where the rankings put them")
	verbose := fs.Bool("v", false, "list every question that the default mode misses at 10")
	unanswerablePath := fs.String("unanswerable", "testdata/retrieval/unanswerable.json", "questions no manual answers, for the no_match rule (\"\" to leave out)")
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

	norm, err := retrieval.ParseNormalization(*normalization)
	if err != nil {
		return err
	}
	other, err := retrieval.ParseMode(*routeOther)
	if err != nil {
		return err
	}
	local := getenv("EMBEDDING_BASE_URL") == ""
	defaultMode, reason := retrieval.DefaultMode(local)
	base1 := retrieval.Config{Store: store, Embedder: embedder, LocalEmbedder: local, K: *rrfK, LexicalWeight: *lexicalWeight,
		VectorWeight: *vectorWeight, Normalization: norm, LexicalShare: *lexicalShare, AnchorDepth: *anchorDepth, RouteOther: other,
		KeepNavigation: *keepNavigation, Log: slog.New(slog.DiscardHandler)}
	var missed []string
	measure := func(cfg retrieval.Config) ([]result, []place, error) {
		r, err := retrieval.New(cfg)
		if err != nil {
			return nil, nil, err
		}
		res := make([]result, len(questions))
		firsts := make([]place, len(questions))
		for i, q := range questions {
			start := time.Now()
			hits, err := r.Retrieve(ctx, q.Question, docqa.Query{TopK: depth})
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", q.ID, err)
			}
			ranked := make([]place, len(hits))
			for j, h := range hits {
				ranked[j] = place{manualOf[h.Document.FileMD5], h.Chunk.Page}
			}
			res[i] = score(q, ranked, start)
			firsts[i] = first(ranked)
			if cfg.Mode == defaultMode && res[i].rank == 0 {
				missed = append(missed, fmt.Sprintf("%s %v: %s -> %v", q.ID, q.Pages, q.Question, ranked[:min(3, len(ranked))]))
			}
		}
		return res, firsts, nil
	}
	var oracle []result
	for _, name := range strings.Split(*modes, ",") {
		mode, err := retrieval.ParseMode(name)
		if err != nil {
			return err
		}
		cfg := base1
		cfg.Mode = mode
		res, f, err := measure(cfg)
		if err != nil {
			return err
		}
		firsts[string(mode)] = f
		rows = append(rows, row{string(mode), res})
		oracle = union(oracle, res)
	}
	if oracle != nil {
		rows = append(rows, row{"oracle (the best rank of the modes above for each question)", oracle})
	}

	if *ranksPath != "" {
		var ranks strings.Builder
		for _, r := range rows {
			key := strings.SplitN(r.name, " ", 2)[0]
			if key == "BM25" {
				key = "bm25"
			}
			if firsts[key] == nil {
				continue // the oracle
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
	fmt.Fprintf(out, "default mode for this embedder: %s (%s)\n\n", defaultMode, reason)
	fmt.Fprintf(out, "| retrieval | hit@1 | hit@5 | hit@10 | MRR@10 | wrong manual first | p50 |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s |\n", r.name, summary(r.results))
	}
	// By language, by the question set's kind and by the router's class,
	// hit@5 and MRR@10 of each row.
	for _, by := range []struct {
		name string
		key  func(question) string
	}{
		{"language", func(q question) string { return q.Lang }},
		{"kind (the question set's)", func(q question) string { return q.Kind }},
		{"class (names an identifier, as routed retrieval decides)", func(q question) string {
			if retrieval.NamesIdentifier(q.Question) != "" {
				return "identifier"
			}
			return "other"
		}},
	} {
		groups := map[string][]int{}
		for i, q := range questions {
			groups[by.key(q)] = append(groups[by.key(q)], i)
		}
		fmt.Fprintf(out, "\nhit@5 / MRR@10 by %s:\n\n| %s | n |", by.name, strings.SplitN(by.name, " ", 2)[0])
		for _, r := range rows {
			fmt.Fprintf(out, " %s |", strings.SplitN(r.name, " ", 2)[0])
		}
		fmt.Fprintf(out, "\n|---|---|%s\n", strings.Repeat("---|", len(rows)))
		for _, k := range slices.Sorted(maps.Keys(groups)) {
			fmt.Fprintf(out, "| %s | %d |", k, len(groups[k]))
			for _, r := range rows {
				var sub []result
				for _, i := range groups[k] {
					sub = append(sub, r.results[i])
				}
				fmt.Fprintf(out, " %.2f / %.2f |", hitAt(sub, 5), mrr(sub))
			}
			fmt.Fprintln(out)
		}
	}
	if *sweep {
		fmt.Fprintf(out, "\nconvex fusion by lexical share and normalization, and routed with it for the other questions "+
			"(hit@1 / hit@5 / hit@10 / MRR@10):\n\n")
		type variant struct {
			name string
			mode retrieval.Mode
			norm retrieval.Normalization
		}
		variants := []variant{
			{"convex minmax", retrieval.Convex, retrieval.MinMax},
			{"convex zscore", retrieval.Convex, retrieval.ZScore},
			{"routed, minmax", retrieval.Routed, retrieval.MinMax},
			{"routed, zscore", retrieval.Routed, retrieval.ZScore},
		}
		fmt.Fprintf(out, "| lexical share |")
		for _, v := range variants {
			fmt.Fprintf(out, " %s |", v.name)
		}
		fmt.Fprintf(out, "\n|---|%s\n", strings.Repeat("---|", len(variants)))
		for step := 1; step <= 20; step++ {
			share := float64(step) / 20
			fmt.Fprintf(out, "| %.2f |", share)
			for _, v := range variants {
				cfg := base1
				cfg.Mode, cfg.Normalization, cfg.LexicalShare, cfg.RouteOther = v.mode, v.norm, share, retrieval.Convex
				res, _, err := measure(cfg)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, " %.2f / %.2f / %.2f / %.3f |", hitAt(res, 1), hitAt(res, 5), hitAt(res, 10), mrr(res))
			}
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "\nanchored by depth (the lexical ranking's first chunks kept first), and routed with hybrid for the other questions "+
			"(hit@1 / hit@5 / hit@10 / MRR@10):\n\n| variant | hit@1 / hit@5 / hit@10 / MRR@10 |\n|---|---|\n")
		for depth := 1; depth <= 5; depth++ {
			cfg := base1
			cfg.Mode, cfg.AnchorDepth = retrieval.Anchored, depth
			res, _, err := measure(cfg)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "| anchored, depth %d | %.2f / %.2f / %.2f / %.3f |\n", depth, hitAt(res, 1), hitAt(res, 5), hitAt(res, 10), mrr(res))
		}
		cfg := base1
		cfg.Mode, cfg.RouteOther = retrieval.Routed, retrieval.Hybrid
		res, _, err := measure(cfg)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "| routed, hybrid for the others | %.2f / %.2f / %.2f / %.3f |\n", hitAt(res, 1), hitAt(res, 5), hitAt(res, 10), mrr(res))
	}
	if *unanswerablePath != "" {
		cfg := base1
		cfg.Mode = defaultMode
		if err := measureNoMatch(ctx, out, cfg, store, questions, *unanswerablePath, *split, *verbose); err != nil {
			return err
		}
	}
	if *verbose {
		fmt.Fprintf(out, "\n%s misses at %d:\n", defaultMode, depth)
		for _, m := range missed {
			fmt.Fprintln(out, "  "+m)
		}
	}
	return nil
}

func joinModes(modes []retrieval.Mode) string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return strings.Join(names, ",")
}

// union is the oracle of rows a and b: each question's best rank of the
// two (a miss only where both miss); a nil a is no row yet.
func union(a, b []result) []result {
	if a == nil {
		return slices.Clone(b)
	}
	out := slices.Clone(a)
	for i, r := range b {
		if r.rank > 0 && (out[i].rank == 0 || r.rank < out[i].rank) {
			out[i].rank = r.rank
		}
		out[i].wrongManual = out[i].wrongManual && r.wrongManual
		out[i].took = max(out[i].took, r.took)
	}
	return out
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

// mrr is the mean reciprocal rank at depth (a miss counts 0).
func mrr(res []result) float64 {
	var sum float64
	for _, r := range res {
		if r.rank > 0 {
			sum += 1 / float64(r.rank)
		}
	}
	return sum / float64(len(res))
}

func summary(res []result) string {
	wrong := 0
	took := make([]time.Duration, len(res))
	for i, r := range res {
		if r.wrongManual {
			wrong++
		}
		took[i] = r.took
	}
	slices.Sort(took)
	// Three decimals: comparisons between modes ("never below lexical")
	// need more than two for 107 questions.
	return fmt.Sprintf("%.3f | %.3f | %.3f | %.3f | %d | %s", hitAt(res, 1), hitAt(res, 5), hitAt(res, 10),
		mrr(res), wrong, took[len(took)/2].Round(10*time.Microsecond))
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

package milvus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/carhub/backend/pkg/auth"
	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/docqa/storetest"
	"github.com/carhub/backend/services/docqa/internal/lexical"
)

const (
	md5A = "0cc175b9c0f1b6a831c399e269772661"
	md5B = "92eb5ffee6ae2fec3ad71c777531578f"
	md5C = "4a8a08f09d37b73795649038408b5f33"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

func vec(head ...float32) []float32 {
	v := make([]float32, docqa.Dimension)
	copy(v, head)
	return v
}

func newDoc(md5, name string, created time.Time, chunks int) docqa.Document {
	return docqa.Document{Owner: 1, FileName: name, FileMD5: md5, Size: 1000, Pages: 2, Chunks: chunks, CreatedAt: created}
}

func chunk(md5 string, index, page int, text string, v []float32) docqa.Chunk {
	return docqa.Chunk{ID: docqa.ChunkID(md5, index), Page: page, Index: index, Text: text, Embedding: v}
}

var testConfig = Config{NProbe: 32, Timeout: 5 * time.Second}

// newStore connects a Store to f over bufconn.
func newStore(t *testing.T, f *fakeMilvus) *Store {
	t.Helper()
	s, err := New(context.Background(), f.serve(t), testConfig)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func mustUpsert(t *testing.T, s *Store, doc docqa.Document, chunks []docqa.Chunk, embedder string) {
	t.Helper()
	if err := s.Upsert(context.Background(), doc, chunks, embedder); err != nil {
		t.Fatalf("Upsert(%s): %v", doc.FileMD5, err)
	}
}

func seed(t *testing.T, s *Store) {
	t.Helper()
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 2), []docqa.Chunk{
		chunk(md5A, 0, 1, "along x", vec(2, 0)),
		chunk(md5A, 1, 2, "between x and y", vec(1, 1)),
	}, "lexical:v1")
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0.Add(time.Hour), 2), []docqa.Chunk{
		chunk(md5B, 0, 1, "along y", vec(0, 3)),
		chunk(md5B, 1, 1, "against x", vec(-1, 0)),
	}, "lexical:v1")
}

func TestCreatesCollectionWithSchemaAndIndexWhenAbsent(t *testing.T) {
	f := newFake()
	newStore(t, f)

	if len(f.connects) == 0 {
		t.Fatal("the client never called Connect")
	}
	if len(f.creates) != 1 {
		t.Fatalf("%d CreateCollection calls, want 1", len(f.creates))
	}
	req := f.creates[0]
	if req.CollectionName != "vector_store" {
		t.Fatalf("collection %q, want vector_store", req.CollectionName)
	}
	var sch schemapb.CollectionSchema
	if err := proto.Unmarshal(req.Schema, protoadapt.MessageV2Of(&sch)); err != nil {
		t.Fatal(err)
	}
	type field struct {
		typ    schemapb.DataType
		pk     bool
		auto   bool
		params map[string]string
	}
	got := map[string]field{}
	var order []string
	for _, fs := range sch.Fields {
		params := map[string]string{}
		for _, kv := range fs.TypeParams {
			params[kv.Key] = kv.Value
		}
		got[fs.Name] = field{fs.DataType, fs.IsPrimaryKey, fs.AutoID, params}
		order = append(order, fs.Name)
	}
	want := map[string]field{
		"doc_id":    {schemapb.DataType_VarChar, true, false, map[string]string{"max_length": "36"}},
		"content":   {schemapb.DataType_VarChar, false, false, map[string]string{"max_length": "65535"}},
		"metadata":  {schemapb.DataType_JSON, false, false, map[string]string{}},
		"embedding": {schemapb.DataType_FloatVector, false, false, map[string]string{"dim": "1024"}},
		"sparse":    {schemapb.DataType_SparseFloatVector, false, false, map[string]string{}},
	}
	if !slices.Equal(order, []string{"doc_id", "content", "metadata", "embedding", "sparse"}) {
		t.Fatalf("fields %v", order)
	}
	for name, w := range want {
		g := got[name]
		if g.typ != w.typ || g.pk != w.pk || g.auto != w.auto || fmt.Sprint(g.params) != fmt.Sprint(w.params) {
			t.Errorf("field %s = %+v, want %+v", name, g, w)
		}
	}

	checkIndexes(t, f, "vector_store")

	if len(f.loads) != 1 || f.loads[0].CollectionName != "vector_store" {
		t.Fatalf("LoadCollection calls %v, want one for vector_store", f.loads)
	}
}

func TestKeepsAnExistingCollection(t *testing.T) {
	// A collection another stack created (it may have other lengths and
	// extra fields, and has no sparse field) with a row already in it.
	sch := oldSchema()
	sch.Fields[1].TypeParams["max_length"] = "4096"
	sch.WithField(entity.NewField().WithName("extra").WithDataType(entity.FieldTypeInt64))
	f := newFake().withCollection(sch)
	// Its metadata has other keys, and "page" of another type.
	f.put("vector_store", fakeRow{id: "existing", content: "kept", meta: []byte(`{"source":"spring","fileName":"x.pdf","page":"3"}`), vec: vec(1)})

	s := newStore(t, f)
	if len(f.creates) != 0 || len(f.createIndexes) != 0 {
		t.Fatalf("re-created an existing collection: %d creates, %d indexes", len(f.creates), len(f.createIndexes))
	}
	if len(f.loads) != 1 {
		t.Fatalf("%d LoadCollection calls, want 1", len(f.loads))
	}
	if f.rowCount() != 1 {
		t.Fatalf("%d rows, want the 1 that was there", f.rowCount())
	}
	// The foreign row names no document of ours: it is left as it was
	// (no owner is written into it) and answers no search, which is
	// filtered by owner.
	hits, err := s.Search(context.Background(), vec(1), docqa.Query{TopK: 5})
	if err != nil || len(hits) != 0 {
		t.Fatalf("search over a foreign row: %v, %v; want no hit", hits, err)
	}
	if r := f.row("existing"); string(r.meta) != `{"source":"spring","fileName":"x.pdf","page":"3"}` || r.content != "kept" {
		t.Fatalf("foreign row changed: %+v", r)
	}
	// Foreign rows carry no embedder record: the collection counts as empty
	// of ours, and documents are only ours.
	if name, err := s.Embedder(context.Background()); err != nil || name != "" {
		t.Fatalf("Embedder = %q, %v", name, err)
	}
	if s.LexicalIndex() {
		t.Fatal("a collection without the sparse field reported a lexical index")
	}
}

func TestRefusesAnIncompatibleCollection(t *testing.T) {
	tests := []struct {
		name   string
		change func(*entity.Schema)
		want   string
	}{
		{"other dimension", func(s *entity.Schema) { s.Fields[3].WithDim(768) }, "dimension 768"},
		{"metadata not JSON", func(s *entity.Schema) { s.Fields[2].DataType = entity.FieldTypeVarChar }, "field metadata"},
		{"content missing", func(s *entity.Schema) { s.Fields = slices.Delete(s.Fields, 1, 2) }, "content is missing"},
		{"sparse of another type", func(s *entity.Schema) { s.Fields[4].DataType = entity.FieldTypeFloatVector }, "field sparse is FloatVector"},
		{"doc_id not the key", func(s *entity.Schema) {
			s.Fields[0].PrimaryKey = false
			s.WithField(entity.NewField().WithName("pk").WithDataType(entity.FieldTypeInt64).WithIsPrimaryKey(true))
		}, "not the primary key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sch := Schema("vector_store")
			tc.change(sch)
			f := newFake().withCollection(sch)
			_, err := New(context.Background(), f.serve(t), testConfig)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want an error saying %q", err, tc.want)
			}
			if errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("a wrong schema is not an outage: %v", err)
			}
			if len(f.creates) != 0 || len(f.loads) != 0 {
				t.Fatal("touched an incompatible collection")
			}
		})
	}
}

func TestConfigValidation(t *testing.T) {
	f := newFake()
	c := f.serve(t)
	for _, n := range []int{-1, NList + 1} {
		if _, err := New(context.Background(), c, Config{NProbe: n}); err == nil {
			t.Fatalf("nprobe %d accepted", n)
		}
	}
	s, err := New(context.Background(), c, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NProbe() != DefaultNProbe || s.cfg.Collection != DefaultCollection || s.cfg.Timeout != DefaultTimeout {
		t.Fatalf("defaults %+v", s.cfg)
	}
	if _, err := Open(context.Background(), Config{}); err == nil {
		t.Fatal("Open without an address accepted")
	}
}

func TestUpsertSendsTheColumns(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	doc := docqa.Document{Owner: 1, FileName: "Handbuch ü.pdf", Title: "Werkstatthandbuch", FileMD5: md5A, Size: 12345, Pages: 7, Chunks: 2, Truncated: true,
		CreatedAt: time.Date(2026, 11, 22, 11, 0, 0, 500, time.FixedZone("CET", 3600))}
	mustUpsert(t, s, doc, []docqa.Chunk{
		chunk(md5A, 0, 1, "first", vec(1, 2, 3)),
		{Page: 3, Index: 1, Heading: "Bremsen / Beläge", Text: "second, no id given", Embedding: vec(4, 5, 6)},
	}, "openai:bge-m3")

	if len(f.upserts) != 1 {
		t.Fatalf("%d Upsert requests, want 1", len(f.upserts))
	}
	req := f.upserts[0]
	if req.CollectionName != "vector_store" || req.NumRows != 2 {
		t.Fatalf("upsert into %q with %d rows", req.CollectionName, req.NumRows)
	}
	cols := map[string]entity.Column{}
	for _, fd := range req.FieldsData {
		col, err := entity.FieldDataColumn(fd, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		cols[fd.FieldName] = col
	}
	if len(cols) != 5 {
		t.Fatalf("columns %v, want the 5 fields", len(cols))
	}
	ids := cols["doc_id"].(*entity.ColumnVarChar).Data()
	if !slices.Equal(ids, []string{docqa.ChunkID(md5A, 0), docqa.ChunkID(md5A, 1)}) {
		t.Fatalf("ids %v", ids)
	}
	if got := cols["content"].(*entity.ColumnVarChar).Data(); !slices.Equal(got, []string{"first", "second, no id given"}) {
		t.Fatalf("content %v", got)
	}
	vecs := cols["embedding"].(*entity.ColumnFloatVector)
	if vecs.Dim() != 1024 || !slices.Equal(vecs.Data()[1], vec(4, 5, 6)) {
		t.Fatalf("embedding dim %d, second %v", vecs.Dim(), vecs.Data()[1][:4])
	}
	metas := cols["metadata"].(*entity.ColumnJSONBytes).Data()
	var m map[string]any
	if err := json.Unmarshal(metas[1], &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"owner": 1.0, "fileName": "Handbuch ü.pdf", "title": "Werkstatthandbuch", "fileMd5": md5A, "page": 3.0, "chunkIndex": 1.0,
		"heading": "Bremsen / Beläge", "size": 12345.0, "pages": 7.0, "chunks": 2.0, "truncated": true,
		"createdAt": "2026-11-22T10:00:00.0000005Z", "embedder": "openai:bge-m3",
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Fatalf("metadata\n got %v\nwant %v", m, want)
	}
	// The sparse vector of each row is its chunk's, from the title, the
	// heading and the text.
	sparseCol := cols["sparse"].(*entity.ColumnSparseFloatVector).Data()
	if got, want := sparseMap(sparseCol[1]), sparseMap(chunkVector("Werkstatthandbuch", "Bremsen / Beläge", "second, no id given")); !maps.Equal(got, want) {
		t.Fatalf("sparse vector of chunk 1\n got %v\nwant %v", got, want)
	}

	got, err := s.Document(context.Background(), md5A)
	if err != nil {
		t.Fatal(err)
	}
	if got.FileName != doc.FileName || got.Size != doc.Size || got.Pages != 7 || got.Chunks != 2 || !got.Truncated || !got.CreatedAt.Equal(doc.CreatedAt) {
		t.Fatalf("Document = %+v, want %+v", got, doc)
	}
}

func TestUpsertIsIdempotentAndBatched(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	const n = 2*upsertBatch + 76
	chunks := make([]docqa.Chunk, n)
	for i := range chunks {
		chunks[i] = chunk(md5A, i, 1, fmt.Sprint("chunk ", i), vec(1, float32(i)))
	}
	for range 2 {
		mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, n), chunks, "e")
	}
	if f.rowCount() != n {
		t.Fatalf("%d rows after writing %d chunks twice, want %d", f.rowCount(), n, n)
	}
	var sizes []uint32
	for _, u := range f.upserts {
		sizes = append(sizes, u.NumRows)
	}
	if !slices.Equal(sizes, []uint32{upsertBatch, upsertBatch, 76, upsertBatch, upsertBatch, 76}) {
		t.Fatalf("batch sizes %v", sizes)
	}
	docs, err := s.Documents(context.Background())
	if err != nil || len(docs) != 1 {
		t.Fatalf("Documents = %v, %v; want one", docs, err)
	}
	// Chunk 0, which answers Document, goes in the last batch.
	for i, u := range f.upserts {
		var ids []string
		for _, fd := range u.FieldsData {
			if fd.FieldName == FieldID {
				ids = fd.GetScalars().GetStringData().GetData()
			}
		}
		has0 := slices.Contains(ids, docqa.ChunkID(md5A, 0))
		if last := i%3 == 2; has0 != last {
			t.Fatalf("request %d carries chunk 0: %v", i, has0)
		}
	}
}

func TestHalfWrittenDocumentIsNotReported(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	f.mu.Lock()
	f.upsertsOK = 1
	f.mu.Unlock()
	chunks := make([]docqa.Chunk, upsertBatch+1)
	for i := range chunks {
		chunks[i] = chunk(md5A, i, 1, "t", vec(1, float32(i)))
	}
	err := s.Upsert(context.Background(), newDoc(md5A, "a.pdf", t0, len(chunks)), chunks, "e")
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("Upsert with its second batch failing: %v, want ErrUnavailable", err)
	}
	if f.rowCount() != upsertBatch {
		t.Fatalf("%d rows, want the first batch's %d", f.rowCount(), upsertBatch)
	}
	if _, err := s.Document(context.Background(), md5A); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("half-written document: %v, want ErrNotFound so that a retry stores it", err)
	}
}

func TestLongContentIsCutOnACharacterBoundary(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	// 65534 ASCII bytes then "€" (3 bytes): the limit falls inside it.
	text := strings.Repeat("a", ContentMaxLength-1) + "€ and more"
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, text, vec(1))}, "e")
	r := f.row(docqa.ChunkID(md5A, 0))
	if len(r.content) != ContentMaxLength-1 || !utf8.ValidString(r.content) || !strings.HasPrefix(text, r.content) {
		t.Fatalf("stored %d bytes (valid UTF-8: %v)", len(r.content), utf8.ValidString(r.content))
	}
	var m metadata
	if err := json.Unmarshal(r.meta, &m); err != nil || !m.ContentTruncated {
		t.Fatalf("metadata %s does not say the content was cut", r.meta)
	}
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0, 1), []docqa.Chunk{chunk(md5B, 0, 1, "short", vec(1))}, "e")
	if strings.Contains(string(f.row(docqa.ChunkID(md5B, 0)).meta), "contentTruncated") {
		t.Fatal("an uncut chunk is marked as cut")
	}
}

func TestTruncateUTF8(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"a€", 3, "a", true},
		{"a€", 4, "a€", false},
		{"€€", 5, "€", true},
		{"", 0, "", false},
	}
	for _, tc := range tests {
		got, cut := truncateUTF8(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("truncateUTF8(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

func TestSearchSendsNProbeAndReadsResults(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	seed(t, s)

	got, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.searches) != 1 {
		t.Fatalf("%d Search requests", len(f.searches))
	}
	req := f.searches[0]
	params := map[string]string{}
	for _, kv := range req.SearchParams {
		params[kv.Key] = kv.Value
	}
	if params["anns_field"] != "embedding" || params["topk"] != "3" || params["metric_type"] != "COSINE" {
		t.Fatalf("search params %v", params)
	}
	var inner map[string]any
	if err := json.Unmarshal([]byte(params["params"]), &inner); err != nil {
		t.Fatalf("params %q: %v", params["params"], err)
	}
	if fmt.Sprint(inner["nprobe"]) != "32" {
		t.Fatalf("nprobe %v, want the configured 32", inner["nprobe"])
	}
	if !slices.Equal(req.OutputFields, []string{"content", "metadata"}) || req.CollectionName != "vector_store" {
		t.Fatalf("output fields %v of %s", req.OutputFields, req.CollectionName)
	}

	r2 := float32(math.Sqrt2 / 2)
	want := []struct {
		id, text string
		page     int
		index    int
		md5      string
		score    float32
	}{
		{docqa.ChunkID(md5A, 0), "along x", 1, 0, md5A, 1},
		{docqa.ChunkID(md5A, 1), "between x and y", 2, 1, md5A, r2},
		{docqa.ChunkID(md5B, 0), "along y", 1, 0, md5B, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d hits, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Chunk.ID != w.id || g.Chunk.Text != w.text || g.Chunk.Page != w.page || g.Chunk.Index != w.index ||
			g.Document.FileMD5 != w.md5 || math.Abs(float64(g.Score-w.score)) > 1e-6 {
			t.Errorf("hit %d = %+v, want %+v", i, g, w)
		}
	}
	if !got[2].Document.CreatedAt.Equal(t0.Add(time.Hour)) || got[2].Document.FileName != "b.pdf" || got[2].Document.Chunks != 2 {
		t.Fatalf("document of hit 2: %+v", got[2].Document)
	}
}

// The SDK retries a call that failed as Unavailable or ResourceExhausted
// (its go-grpc-middleware retry interceptor, which services/docqa/go.mod
// serves from v2's: pkg/grpcmiddleware-v1) and no other failure.
func TestTransientFailuresAreRetried(t *testing.T) {
	cases := []struct {
		code     codes.Code
		failures int
		requests int
		ok       bool
	}{
		{codes.Unavailable, 2, 3, true},
		{codes.ResourceExhausted, 1, 2, true},
		{codes.Internal, 1, 1, false},
		{codes.InvalidArgument, 1, 1, false},
	}
	for _, c := range cases {
		t.Run(c.code.String(), func(t *testing.T) {
			f := newFake()
			s := newStore(t, f)
			seed(t, s)
			f.failTimes("Search", c.code, c.failures)
			before := len(f.searches)
			got, err := s.Search(context.Background(), vec(1, 0), docqa.Query{TopK: 1})
			f.mu.Lock()
			requests := len(f.searches) - before
			f.mu.Unlock()
			if requests != c.requests {
				t.Errorf("%d Search requests after %d %s failures, want %d", requests, c.failures, c.code, c.requests)
			}
			if c.ok && (err != nil || len(got) != 1 || got[0].Chunk.Text != "along x") {
				t.Fatalf("after %d %s failures: %v, %+v; want the nearest chunk", c.failures, c.code, err, got)
			}
			if !c.ok && !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("a %s failure answered %v, want ErrUnavailable", c.code, err)
			}
		})
	}
}

func TestSearchEdges(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	ctx := context.Background()
	if got, err := s.Search(ctx, vec(), docqa.Query{TopK: 3}); err != nil || len(got) != 0 {
		t.Fatalf("zero vector: %v, %v", got, err)
	}
	if _, err := s.Search(ctx, []float32{1}, docqa.Query{TopK: 3}); !errors.Is(err, docqa.ErrDimension) {
		t.Fatalf("short vector: %v", err)
	}
	if _, err := s.Search(ctx, vec(1), docqa.Query{TopK: 0}); err == nil {
		t.Fatal("topK 0 accepted")
	}
	if len(f.searches) != 0 {
		t.Fatalf("%d requests sent for searches refused before sending", len(f.searches))
	}
	if got, err := s.Search(ctx, vec(1), docqa.Query{TopK: 5}); err != nil || len(got) != 0 {
		t.Fatalf("empty collection: %v, %v", got, err)
	}
}

func TestDocumentsDocumentAndDelete(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	seed(t, s)
	mustUpsert(t, s, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(0, 0, 1))}, "lexical:v1")

	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, d := range docs {
		order = append(order, d.FileMD5)
	}
	if want := []string{md5B, md5A, md5C}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want newest first then by md5 %v", order, want)
	}
	last := f.queries[len(f.queries)-1]
	if last.Expr != `metadata["chunkIndex"] == 0 && metadata["owner"] in [1, 0]` || !slices.Contains(last.OutputFields, "metadata") {
		t.Fatalf("Documents query %q %v", last.Expr, last.OutputFields)
	}

	doc, err := s.Document(ctx, md5A)
	if err != nil {
		t.Fatal(err)
	}
	if doc.FileName != "a.pdf" || doc.Chunks != 2 || !doc.CreatedAt.Equal(t0) {
		t.Fatalf("Document = %+v", doc)
	}
	last = f.queries[len(f.queries)-1]
	if want := `metadata["fileMd5"] == "` + md5A + `" && metadata["chunkIndex"] == 0 && metadata["owner"] in [1, 0]`; last.Expr != want {
		t.Fatalf("Document query %q, want %q", last.Expr, want)
	}
	if !hasParam(last, "limit", "2") {
		t.Fatalf("Document query params %v, want limit 2", last.QueryParams)
	}

	tests := []struct {
		name    string
		md5     string
		err     error
		deletes int // Delete requests sent
	}{
		{"present", md5A, nil, 1},
		{"already deleted", md5A, docqa.ErrNotFound, 0},
		{"never stored", "ffffffffffffffffffffffffffffffff", docqa.ErrNotFound, 0},
		{"injection", `x" || metadata["chunkIndex"] >= 0 || "`, docqa.ErrNotFound, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.deletes)
			err := s.Delete(ctx, 1, tc.md5)
			if (tc.err == nil) != (err == nil) || !errors.Is(err, tc.err) {
				t.Fatalf("Delete = %v, want %v", err, tc.err)
			}
			if sent := len(f.deletes) - before; sent != tc.deletes {
				t.Fatalf("%d Delete requests, want %d", sent, tc.deletes)
			}
		})
	}
	if want := `metadata["fileMd5"] == "` + md5A + `" && metadata["owner"] == 1`; f.deletes[0].Expr != want || f.deletes[0].CollectionName != "vector_store" {
		t.Fatalf("delete expression %q on %s, want %q", f.deletes[0].Expr, f.deletes[0].CollectionName, want)
	}
	if f.rowCount() != 3 {
		t.Fatalf("%d rows after deleting a 2-chunk document of 5, want 3", f.rowCount())
	}
	if _, err := s.Document(ctx, md5A); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("Document after delete: %v", err)
	}
	if _, err := s.Document(ctx, "not-an-md5"); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("Document of an invalid md5: %v", err)
	}
}

func hasParam(q *milvuspb.QueryRequest, key, value string) bool {
	for _, kv := range q.QueryParams {
		if kv.Key == key && kv.Value == value {
			return true
		}
	}
	return false
}

func TestQuote(t *testing.T) {
	tests := map[string]string{
		md5A:       `"` + md5A + `"`,
		`a"b`:      `"a\"b"`,
		`a\b`:      `"a\\b"`,
		"a\nb\x00": `"ab"`,
		"ü":        `"ü"`,
	}
	for in, want := range tests {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestEmbedderIsRecordedAndNeverMixed(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	if name, err := s.Embedder(ctx); err != nil || name != "" {
		t.Fatalf("empty collection Embedder = %q, %v", name, err)
	}
	seed(t, s)
	if name, err := s.Embedder(ctx); err != nil || name != "lexical:v1" {
		t.Fatalf("Embedder = %q, %v", name, err)
	}
	upserts := len(f.upserts)
	err := s.Upsert(ctx, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(1))}, "openai:bge-m3")
	if !errors.Is(err, docqa.ErrEmbedderMismatch) {
		t.Fatalf("upsert by another embedder: %v, want ErrEmbedderMismatch", err)
	}
	if !strings.Contains(err.Error(), "lexical:v1") || !strings.Contains(err.Error(), "openai:bge-m3") {
		t.Fatalf("error does not name both embedders: %v", err)
	}
	if len(f.upserts) != upserts {
		t.Fatal("refused upsert was sent")
	}
	for _, md5 := range []string{md5A, md5B} {
		if err := s.Delete(ctx, 1, md5); err != nil {
			t.Fatal(err)
		}
	}
	mustUpsert(t, s, newDoc(md5C, "c.pdf", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(1))}, "openai:bge-m3")
}

func TestInvalidUpserts(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	good := []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1))}
	inf := vec(1)
	inf[3] = float32(math.Inf(1))
	tests := []struct {
		name     string
		doc      docqa.Document
		chunks   []docqa.Chunk
		embedder string
		is       error
	}{
		{"md5 with a quote", newDoc(`abc"def`, "a", t0, 1), good, "e", nil},
		{"no embedder", newDoc(md5A, "a", t0, 1), good, "", nil},
		{"no chunks", newDoc(md5A, "a", t0, 0), nil, "e", nil},
		{"wrong dimension", newDoc(md5A, "a", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", vec(1)[:1000])}, "e", docqa.ErrDimension},
		{"infinite value", newDoc(md5A, "a", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "x", inf)}, "e", nil},
		{"id too long", newDoc(md5A, "a", t0, 1), []docqa.Chunk{{ID: strings.Repeat("x", 37), Embedding: vec(1)}}, "e", nil},
		{"duplicate id", newDoc(md5A, "a", t0, 2), []docqa.Chunk{good[0], good[0]}, "e", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Upsert(context.Background(), tc.doc, tc.chunks, tc.embedder)
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("Upsert = %v, want an error (wrapping %v)", err, tc.is)
			}
		})
	}
	if len(f.upserts) != 0 {
		t.Fatalf("%d invalid upserts reached the server", len(f.upserts))
	}
}

func TestServerErrorsAreUnavailable(t *testing.T) {
	ctx := context.Background()
	ops := []struct {
		method string
		call   func(*Store) error
	}{
		{"Upsert", func(s *Store) error {
			return s.Upsert(ctx, newDoc(md5C, "c", t0, 1), []docqa.Chunk{chunk(md5C, 0, 1, "c", vec(1))}, "lexical:v1")
		}},
		{"Search", func(s *Store) error { _, err := s.Search(ctx, vec(1), docqa.Query{TopK: 3}); return err }},
		{"Search", func(s *Store) error { _, err := s.SearchText(ctx, "along x", docqa.Query{TopK: 3}); return err }},
		{"Query", func(s *Store) error { _, err := s.Documents(ctx); return err }},
		{"Query", func(s *Store) error { _, err := s.Document(ctx, md5A); return err }},
		{"Query", func(s *Store) error { _, err := s.Embedder(ctx); return err }},
		{"Delete", func(s *Store) error { return s.Delete(ctx, 1, md5A) }},
		{"CheckHealth", func(s *Store) error { return s.Ping(ctx) }},
	}
	for _, op := range ops {
		t.Run(op.method, func(t *testing.T) {
			f := newFake()
			s := newStore(t, f)
			seed(t, s)
			if err := op.call(s); err != nil {
				t.Fatalf("before the failure: %v", err)
			}
			seed(t, s) // again, for Delete
			f.fail(op.method, codes.Internal)
			err := op.call(s)
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("%s failing: %v, want ErrUnavailable", op.method, err)
			}
			if !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("cause lost: %v", err)
			}
		})
	}
}

func TestStartupErrorsAreUnavailable(t *testing.T) {
	for _, method := range []string{"HasCollection", "CreateIndex", "LoadCollection", "Query"} {
		t.Run(method, func(t *testing.T) {
			f := newFake()
			f.fail(method, codes.Internal)
			_, err := New(context.Background(), f.serve(t), testConfig)
			if !errors.Is(err, docqa.ErrUnavailable) {
				t.Fatalf("New with %s failing: %v, want ErrUnavailable", method, err)
			}
		})
	}
}

func TestPing(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping of a healthy server: %v", err)
	}
	f.mu.Lock()
	f.healthy = false
	f.mu.Unlock()
	err := s.Ping(context.Background())
	if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "querynode down") {
		t.Fatalf("Ping of an unhealthy server: %v", err)
	}
}

func TestServerGoneIsUnavailable(t *testing.T) {
	f := newFake()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	milvuspb.RegisterMilvusServiceServer(srv, f)
	go srv.Serve(lis)
	defer srv.Stop()

	s, err := Open(context.Background(), Config{Address: lis.Addr().String(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open over TCP: %v", err)
	}
	defer s.Close()
	if len(f.connects) != 1 || f.connects[0].ClientInfo.GetSdkType() != "Golang" {
		t.Fatalf("Connect requests %v", f.connects)
	}
	seed(t, s)
	if hits, err := s.Search(context.Background(), vec(1), docqa.Query{TopK: 2}); err != nil || len(hits) != 2 {
		t.Fatalf("search over TCP: %v, %v", hits, err)
	}

	srv.Stop()
	if err := s.Ping(context.Background()); !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("Ping after the server stopped: %v", err)
	}
	if _, err := s.Search(context.Background(), vec(1), docqa.Query{TopK: 2}); !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("Search after the server stopped: %v", err)
	}
}

func TestOpenUnreachableIsUnavailable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now
	_, err = Open(context.Background(), Config{Address: addr, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("Open of %s: %v, want ErrUnavailable", addr, err)
	}
}

func TestConcurrentUpserts(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	ctx := context.Background()
	const writers, chunksEach = 6, 4
	var wg sync.WaitGroup
	errs := make(chan error, writers*2)
	for w := range writers {
		wg.Go(func() {
			md5 := fmt.Sprintf("%032x", w)
			chunks := make([]docqa.Chunk, chunksEach)
			for i := range chunks {
				chunks[i] = chunk(md5, i, 1, md5, vec(float32(w+1), float32(i)))
			}
			for range 2 {
				if err := s.Upsert(ctx, newDoc(md5, "f.pdf", t0.Add(time.Duration(w)*time.Minute), chunksEach), chunks, "e"); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if f.rowCount() != writers*chunksEach {
		t.Fatalf("%d rows, want %d", f.rowCount(), writers*chunksEach)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != writers || docs[0].FileMD5 != fmt.Sprintf("%032x", writers-1) {
		t.Fatalf("Documents = %v, %v", docs, err)
	}
}

// FuzzParseMetadata: any bytes in a row's metadata are read without panic.
func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(`{"fileName":"a.pdf","fileMd5":"` + md5A + `","page":1,"chunkIndex":0,"createdAt":"2026-11-22T10:00:00Z"}`))
	f.Add([]byte(`{"page":"3","chunks":[1],"truncated":"yes"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, js []byte) {
		m := parseMetadata(js)
		_ = m.document()
	})
}

// FuzzQuote: a quoted value is one string literal, whatever it holds.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{md5A, `a"b`, `a\`, "x\n\" || true || \"", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := quote(s)
		inner := q[1 : len(q)-1]
		if q[0] != '"' || q[len(q)-1] != '"' {
			t.Fatalf("quote(%q) = %s", s, q)
		}
		for i := 0; i < len(inner); i++ {
			switch inner[i] {
			case '\\':
				i++ // the escaped character
				if i == len(inner) || (inner[i] != '\\' && inner[i] != '"') {
					t.Fatalf("quote(%q) = %s: dangling or unknown escape", s, q)
				}
			case '"':
				t.Fatalf("quote(%q) = %s: unescaped quote ends the literal early", s, q)
			default:
				if inner[i] < 0x20 || inner[i] == 0x7f {
					t.Fatalf("quote(%q) = %s: control character", s, q)
				}
			}
		}
	})
}

// oldSchema is the four-field schema of earlier versions and of the other
// stacks that share vector_store: no sparse field.
func oldSchema() *entity.Schema {
	sch := Schema("vector_store")
	sch.Fields = sch.Fields[:4]
	return sch
}

// checkIndexes checks that collection got its two indexes, as New and
// Reindex create them.
func checkIndexes(t *testing.T, f *fakeMilvus, collection string) {
	t.Helper()
	got := map[string]map[string]string{}
	for _, idx := range f.createIndexes {
		if idx.CollectionName == collection {
			got[idx.FieldName] = kvMap(idx.ExtraParams)
		}
	}
	if len(got) != 2 {
		t.Fatalf("indexes of %s on %v, want embedding and sparse", collection, slices.Collect(maps.Keys(got)))
	}
	dense, sparse := got["embedding"], got["sparse"]
	if dense["index_type"] != "IVF_FLAT" || dense["metric_type"] != "COSINE" {
		t.Fatalf("embedding index %v, want IVF_FLAT and COSINE", dense)
	}
	var build map[string]any
	if err := json.Unmarshal([]byte(dense["params"]), &build); err != nil || fmt.Sprint(build["nlist"]) != "1024" {
		t.Fatalf("embedding index build params %q, want nlist 1024", dense["params"])
	}
	if sparse["index_type"] != "SPARSE_INVERTED_INDEX" || sparse["metric_type"] != "IP" {
		t.Fatalf("sparse index %v, want SPARSE_INVERTED_INDEX and IP", sparse)
	}
	if err := json.Unmarshal([]byte(sparse["params"]), &build); err != nil || fmt.Sprint(build["drop_ratio_build"]) != "0" {
		t.Fatalf("sparse index build params %q, want drop_ratio_build 0", sparse["params"])
	}
}

func sparseMap(e entity.SparseEmbedding) map[uint32]float32 {
	m := map[uint32]float32{}
	for i := range e.Len() {
		d, v, _ := e.Get(i)
		m[d] = v
	}
	return m
}

// bm25TF is the term-frequency part of BM25 for a weighted count tf in a
// chunk of weighted length n, written out independently of chunkVector.
func bm25TF(tf, n float64) float64 {
	return tf * 2.2 / (tf + 1.2*(0.25+0.75*n/256))
}

// bm25IDF is BM25's inverse document frequency for a term in df of n chunks.
func bm25IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

func TestChunkVector(t *testing.T) {
	// title "Service Manual": service 3, manual 3; heading "Engine":
	// engine 2; text: engine 2 more, oil 1, filter 1 ("the" and "of" are
	// stop words). Weighted length 3+3+4+1+1 = 12.
	got := sparseMap(chunkVector("Service Manual", "Engine", "Engine oil, the engine filter of"))
	want := map[uint32]float32{}
	for term, tf := range map[string]float64{"service": 3, "manual": 3, "engine": 4, "oil": 1, "filter": 1} {
		want[termOf(term)] = float32(bm25TF(tf, 12))
	}
	if len(got) != len(want) {
		t.Fatalf("dimensions %v, want %v", got, want)
	}
	for d, w := range want {
		if math.Abs(float64(got[d]-w)) > 1e-6 {
			t.Fatalf("dimension %d = %v, want %v (all: %v)", d, got[d], w, got)
		}
	}

	// Chinese runs become character pairs, as lexical.Prepare makes them.
	cjk := sparseMap(chunkVector("", "", "刹车片"))
	if len(cjk) != 2 || cjk[termOf("刹车")] == 0 || cjk[termOf("车片")] == 0 {
		t.Fatalf("CJK vector %v, want the pairs 刹车 and 车片", cjk)
	}

	// A chunk without terms still gets a row Milvus accepts, on the one
	// dimension no term has.
	for _, text := range []string{"... --- !!!", "The and of it"} {
		if got := sparseMap(chunkVector("", "", text)); !maps.Equal(got, map[uint32]float32{emptyDim: 1}) {
			t.Fatalf("chunkVector(%q) = %v, want only the empty dimension", text, got)
		}
	}
	if termOf("x") >= emptyDim {
		t.Fatal("a term reached the reserved dimension")
	}
}

// termOf is the dimension of a word as lexical analysis has it (stemmed).
func termOf(word string) uint32 { return termDim(lexical.Analyze(word)[0]) }

// TestCountTermsSplitsLikeTerms: the counter finds exactly the terms
// lexical.Analyze finds in the same text.
func TestCountTermsSplitsLikeTerms(t *testing.T) {
	for _, text := range []string{
		"The ENGINE engine's Öl-Filter, 2× 10W-40 and café (cafe\u0301) — ﬁne: Ｆｕｌｌ width",
		"刹车片的更换 brake pads 交換 ブレーキ",
		"",
	} {
		tf := map[uint32]int{}
		countTerms(text, 1, tf)
		want := map[uint32]int{}
		for _, term := range lexical.Analyze(text) {
			want[termDim(term)]++
		}
		if !maps.Equal(tf, want) {
			t.Fatalf("%q: counted %v, lexical.Analyze has %v", text, tf, want)
		}
	}
	tf := map[uint32]int{}
	if n := countTerms("engine Engine ENGINE the", 2, tf); n != 6 || tf[termOf("engine")] != 6 {
		t.Fatalf("counted %d, engine %d; want 6 and 6", n, tf[termOf("engine")])
	}
}

// lexicalCorpus stores two documents whose BM25 figures the tests work
// out by hand:
//
//	A0 title "Service Manual", text "engine oil engine filter":
//	   service 3, manual 3, engine 2, oil 1, filter 1        len 10
//	A1 same title, text "engine gasket":
//	   service 3, manual 3, engine 1, gasket 1               len 8
//	A2 same title, text "engine coolant brakes":
//	   service 3, manual 3, engine 1, coolant 1, brakes 1    len 9
//	B0 and B1 title "Brakes", text "pad wear":
//	   brakes 3, pad 1, wear 1                               len 5
//
// N = 5; df: engine 3, brakes 3, pad 2, wear 2, gasket 1, others 1 or 3.
func lexicalCorpus(t *testing.T, s *Store) {
	t.Helper()
	docA := docqa.Document{Owner: 1, FileName: "service.pdf", Title: "Service Manual", FileMD5: md5A, Chunks: 3, CreatedAt: t0}
	mustUpsert(t, s, docA, []docqa.Chunk{
		chunk(md5A, 0, 1, "engine oil engine filter", vec(1)),
		chunk(md5A, 1, 1, "engine gasket", vec(1)),
		chunk(md5A, 2, 2, "engine coolant brakes", vec(1)),
	}, "e")
	docB := docqa.Document{Owner: 1, FileName: "brakes.pdf", Title: "Brakes", FileMD5: md5B, Chunks: 2, CreatedAt: t0}
	mustUpsert(t, s, docB, []docqa.Chunk{
		chunk(md5B, 0, 1, "pad wear", vec(1)),
		chunk(md5B, 1, 1, "pad wear", vec(1)),
	}, "e")
}

type wantHit struct {
	id    string
	score float64
}

func checkHits(t *testing.T, got []docqa.ScoredChunk, want []wantHit) {
	t.Helper()
	if len(got) != len(want) {
		var ids []string
		for _, g := range got {
			ids = append(ids, g.Chunk.ID)
		}
		t.Fatalf("%d hits %v, want %d", len(got), ids, len(want))
	}
	for i, w := range want {
		if got[i].Chunk.ID != w.id || math.Abs(float64(got[i].Score)-w.score) > 1e-5 {
			t.Errorf("hit %d = %s (index %d) score %v, want %s score %v", i, got[i].Chunk.ID, got[i].Chunk.Index, got[i].Score, w.id, w.score)
		}
	}
}

func TestSearchTextRanksByBM25(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	if !s.LexicalIndex() {
		t.Fatal("a new collection has no lexical index")
	}
	lexicalCorpus(t, s)
	a0, a1, a2 := docqa.ChunkID(md5A, 0), docqa.ChunkID(md5A, 1), docqa.ChunkID(md5A, 2)
	b0, b1 := docqa.ChunkID(md5B, 0), docqa.ChunkID(md5B, 1)
	idfEngine, idfGasket, idfBrakes := bm25IDF(5, 3), bm25IDF(5, 1), bm25IDF(5, 3)

	t.Run("a rare term beats a common one", func(t *testing.T) {
		got, err := s.SearchText(ctx, "engine gasket", docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		// A1 holds the rare "gasket"; A0 holds the common "engine" twice,
		// which beats A2's one "engine". B holds neither: no hit.
		checkHits(t, got, []wantHit{
			{a1, idfEngine*bm25TF(1, 8) + idfGasket*bm25TF(1, 8)}, // 3.189
			{a0, idfEngine * bm25TF(2, 10)},                       // 1.016
			{a2, idfEngine * bm25TF(1, 9)},                        // 0.890
		})
	})

	t.Run("a title match lifts a chunk, ties by chunk", func(t *testing.T) {
		got, err := s.SearchText(ctx, "What about the brakes?", docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		// B0 and B1 say "brakes" only in their document's title (weight 3),
		// A2 once in its text; B0 and B1 score the same and come in chunk
		// order, whatever order the server answers them in.
		checkHits(t, got, []wantHit{
			{b0, idfBrakes * bm25TF(3, 5)}, // 1.072
			{b1, idfBrakes * bm25TF(3, 5)},
			{a2, idfBrakes * bm25TF(1, 9)}, // 0.890
		})
		if got[0].Document.Title != "Brakes" || got[2].Document.Title != "Service Manual" {
			t.Fatalf("titles %q, %q", got[0].Document.Title, got[2].Document.Title)
		}
	})

	t.Run("request", func(t *testing.T) {
		before := len(f.searches)
		if _, err := s.SearchText(ctx, "engine gasket", docqa.Query{TopK: 2}); err != nil {
			t.Fatal(err)
		}
		if len(f.searches) != before+1 {
			t.Fatalf("%d requests for one search", len(f.searches)-before)
		}
		req := f.searches[len(f.searches)-1]
		params := kvMap(req.SearchParams)
		if params["anns_field"] != "sparse" || params["metric_type"] != "IP" || params["topk"] != "2" {
			t.Fatalf("search params %v", params)
		}
		var inner map[string]any
		if err := json.Unmarshal([]byte(params["params"]), &inner); err != nil || fmt.Sprint(inner["drop_ratio_search"]) != "0" {
			t.Fatalf("params %q, want drop_ratio_search 0", params["params"])
		}
		if !slices.Equal(req.OutputFields, []string{"content", "metadata"}) || req.Dsl != `metadata["owner"] in [1, 0]` || req.CollectionName != "vector_store" {
			t.Fatalf("output %v, expression %q, collection %s", req.OutputFields, req.Dsl, req.CollectionName)
		}
		// Session consistency: the guarantee is this client's last write.
		f.mu.Lock()
		last := f.clock
		f.mu.Unlock()
		if req.GuaranteeTimestamp != last {
			t.Fatalf("guarantee timestamp %d, want the last write's %d (Session)", req.GuaranteeTimestamp, last)
		}
		got := sentQuery(t, req)
		want := map[uint32]float32{termOf("engine"): float32(idfEngine), termOf("gasket"): float32(idfGasket)}
		if !approxEqual(got, want) {
			t.Fatalf("query vector %v, want the idf %v", got, want)
		}
	})

	t.Run("no terms, no request", func(t *testing.T) {
		before := len(f.searches)
		for _, q := range []string{"", "   ", "what is the", "?!"} {
			got, err := s.SearchText(ctx, q, docqa.Query{TopK: 3})
			if err != nil || len(got) != 0 {
				t.Fatalf("SearchText(%q) = %v, %v", q, got, err)
			}
		}
		if _, err := s.SearchText(ctx, "engine", docqa.Query{TopK: 0}); err == nil {
			t.Fatal("topK 0 accepted")
		}
		if len(f.searches) != before {
			t.Fatalf("%d requests sent for searches without terms", len(f.searches)-before)
		}
	})

	t.Run("a term nobody has", func(t *testing.T) {
		got, err := s.SearchText(ctx, "turbocharger", docqa.Query{TopK: 3})
		if err != nil || len(got) != 0 {
			t.Fatalf("SearchText = %v, %v", got, err)
		}
		q := sentQuery(t, f.searches[len(f.searches)-1])
		if want := float32(bm25IDF(5, 0)); math.Abs(float64(q[termOf("turbocharger")]-want)) > 1e-6 {
			t.Fatalf("unknown term weighs %v, want the idf of df 0 %v", q, want)
		}
	})
}

// sentQuery decodes the sparse query vector of a search request.
func sentQuery(t *testing.T, req *milvuspb.SearchRequest) map[uint32]float32 {
	t.Helper()
	var pg commonpb.PlaceholderGroup
	if err := proto.Unmarshal(req.PlaceholderGroup, protoadapt.MessageV2Of(&pg)); err != nil {
		t.Fatal(err)
	}
	if ph := pg.Placeholders[0]; ph.Type != commonpb.PlaceholderType_SparseFloatVector {
		t.Fatalf("placeholder of type %v", ph.Type)
	}
	return decodeSparse(pg.Placeholders[0].Values[0])
}

func approxEqual(a, b map[uint32]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for d, v := range b {
		w, ok := a[d]
		if !ok || math.Abs(float64(v-w)) > 1e-6 {
			return false
		}
	}
	return true
}

func TestTermStatisticsFollowWrites(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	lexicalCorpus(t, s)
	question := "gasket turbo"
	idfSent := func(t *testing.T) map[uint32]float32 {
		t.Helper()
		if _, err := s.SearchText(ctx, question, docqa.Query{TopK: 10}); err != nil {
			t.Fatal(err)
		}
		return sentQuery(t, f.searches[len(f.searches)-1])
	}
	check := func(t *testing.T, n, dfGasket, dfTurbo float64) {
		t.Helper()
		want := map[uint32]float32{termOf("gasket"): float32(bm25IDF(n, dfGasket)), termOf("turbo"): float32(bm25IDF(n, dfTurbo))}
		if got := idfSent(t); !approxEqual(got, want) {
			t.Fatalf("idf sent %v, want %v (N %v, df gasket %v, turbo %v)", got, want, n, dfGasket, dfTurbo)
		}
	}
	check(t, 5, 1, 0)

	t.Run("upsert of a new document", func(t *testing.T) {
		docC := docqa.Document{Owner: 1, FileName: "c.pdf", Title: "Turbo Notes", FileMD5: md5C, Chunks: 1, CreatedAt: t0}
		mustUpsert(t, s, docC, []docqa.Chunk{chunk(md5C, 0, 1, "gasket turbo", vec(1))}, "e")
		check(t, 6, 2, 1)
	})

	t.Run("upsert replacing a chunk", func(t *testing.T) {
		// A1 loses "gasket": its old terms are counted out before the new
		// ones are counted in, and N stays.
		queries := len(f.queries)
		docA := docqa.Document{Owner: 1, FileName: "service.pdf", Title: "Service Manual", FileMD5: md5A, Chunks: 3, CreatedAt: t0}
		mustUpsert(t, s, docA, []docqa.Chunk{chunk(md5A, 1, 1, "engine seal", vec(1))}, "e")
		check(t, 6, 1, 1)
		var read *milvuspb.QueryRequest
		for _, q := range f.queries[queries:] {
			if strings.HasPrefix(q.Expr, "doc_id in ") {
				read = q
			}
		}
		if read == nil || read.Expr != `doc_id in ["`+docqa.ChunkID(md5A, 1)+`"]` || !slices.Equal(read.OutputFields, []string{"sparse"}) || read.GuaranteeTimestamp != 0 {
			t.Fatalf("the replaced row was not read (Strong) before the write: %v", read)
		}
	})

	t.Run("delete", func(t *testing.T) {
		// C's terms no longer count: "turbo" is nowhere, "gasket" nowhere.
		if err := s.Delete(ctx, 1, md5C); err != nil {
			t.Fatal(err)
		}
		check(t, 5, 0, 0)
		if _, ok := s.stats.df[termOf("turbo")]; ok {
			t.Fatal("a term of no chunk stays in the table")
		}
	})

	t.Run("a new store counts the same", func(t *testing.T) {
		s2, err := New(ctx, f.serve(t), testConfig)
		if err != nil {
			t.Fatal(err)
		}
		s.mu.RLock()
		defer s.mu.RUnlock()
		if s2.stats.chunks != s.stats.chunks || !maps.Equal(s2.stats.df, s.stats.df) {
			t.Fatalf("counted at start: %d chunks, %d terms; kept by the writes: %d chunks, %d terms",
				s2.stats.chunks, len(s2.stats.df), s.stats.chunks, len(s.stats.df))
		}
	})
}

func TestNewReadsTermStatisticsInBatches(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	const n = sparseBatch + 7
	chunks := make([]docqa.Chunk, n)
	for i := range chunks {
		chunks[i] = chunk(md5A, i, 1, fmt.Sprint("word", i%3, " common"), vec(1, float32(i)))
	}
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, n), chunks, "e")
	queries := len(f.queries)
	s2, err := New(ctx, f.serve(t), testConfig)
	if err != nil {
		t.Fatal(err)
	}
	if s2.stats.chunks != n || s2.stats.df[termOf("common")] != n || s2.stats.df[termOf("word1")] != (n+1)/3 {
		t.Fatalf("counted %d chunks, common %d, word1 %d", s2.stats.chunks, s2.stats.df[termOf("common")], s2.stats.df[termOf("word1")])
	}
	var limits []string
	for _, q := range f.queries[queries:] {
		if slices.Contains(q.OutputFields, "sparse") {
			limits = append(limits, kvMap(q.QueryParams)["limit"])
		}
	}
	if len(limits) < 2 || slices.ContainsFunc(limits, func(l string) bool { return l != strconv.Itoa(sparseBatch) }) {
		t.Fatalf("sparse vectors read with limits %v, want batches of %d", limits, sparseBatch)
	}
}

func TestEmptyChunkIsStoredAndNeverFound(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 2), []docqa.Chunk{
		chunk(md5A, 0, 1, "... ------ ...", vec(1)),
		chunk(md5A, 1, 1, "gasket", vec(1)),
	}, "e")
	if got := f.row(docqa.ChunkID(md5A, 0)).sparse; !maps.Equal(got, map[uint32]float32{emptyDim: 1}) {
		t.Fatalf("empty chunk stored as %v", got)
	}
	if s.stats.chunks != 2 || len(s.stats.df) != 1 {
		t.Fatalf("stats %d chunks %v, want 2 chunks and gasket only", s.stats.chunks, s.stats.df)
	}
	got, err := s.SearchText(ctx, "gasket", docqa.Query{TopK: 5})
	if err != nil || len(got) != 1 || got[0].Chunk.Index != 1 {
		t.Fatalf("SearchText = %v, %v", got, err)
	}
}

func TestDocumentsFilterIsPartOfTheSearch(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	// A: four chunks that match worse than each of B's three.
	var chunksA, chunksB []docqa.Chunk
	for i := range 4 {
		chunksA = append(chunksA, chunk(md5A, i, 1, fmt.Sprint("pump housing part ", i, " bolts screws"), vec(1, 1, float32(i))))
	}
	for i := range 3 {
		chunksB = append(chunksB, chunk(md5B, i, 1, "pump pump", vec(1)))
	}
	mustUpsert(t, s, docqa.Document{Owner: 1, FileName: "a.pdf", FileMD5: md5A, Chunks: 4, CreatedAt: t0}, chunksA, "e")
	mustUpsert(t, s, docqa.Document{Owner: 1, FileName: "b.pdf", Title: "Pump", FileMD5: md5B, Chunks: 3, CreatedAt: t0}, chunksB, "e")

	searches := []struct {
		name string
		run  func(q docqa.Query) ([]docqa.ScoredChunk, error)
	}{
		{"vector", func(q docqa.Query) ([]docqa.ScoredChunk, error) { return s.Search(ctx, vec(1), q) }},
		{"text", func(q docqa.Query) ([]docqa.ScoredChunk, error) { return s.SearchText(ctx, "pump", q) }},
	}
	for _, sr := range searches {
		t.Run(sr.name, func(t *testing.T) {
			// Unfiltered, B's chunks are the best three.
			got, err := sr.run(docqa.Query{TopK: 3})
			if err != nil || len(got) != 3 || slices.ContainsFunc(got, func(h docqa.ScoredChunk) bool { return h.Document.FileMD5 != md5B }) {
				t.Fatalf("unfiltered: %v, %v; want B's three chunks", got, err)
			}
			// Filtered to A: TopK of A's chunks, so the filter is applied by
			// the server before the limit, not to the three best afterwards.
			got, err = sr.run(docqa.Query{TopK: 3, Documents: []string{md5A}})
			if err != nil || len(got) != 3 || slices.ContainsFunc(got, func(h docqa.ScoredChunk) bool { return h.Document.FileMD5 != md5A }) {
				t.Fatalf("filtered to A: %v, %v; want three of A's chunks", got, err)
			}
			if want := `metadata["fileMd5"] in ["` + md5A + `"] && metadata["owner"] in [1, 0]`; f.searches[len(f.searches)-1].Dsl != want {
				t.Fatalf("expression %q, want %q", f.searches[len(f.searches)-1].Dsl, want)
			}
			// Invalid names can match nothing and are left out; duplicates once.
			if _, err := sr.run(docqa.Query{TopK: 3, Documents: []string{md5A, "bogus", md5A, md5B, `x" || true`}}); err != nil {
				t.Fatal(err)
			}
			if want := `metadata["fileMd5"] in ["` + md5A + `", "` + md5B + `"] && metadata["owner"] in [1, 0]`; f.searches[len(f.searches)-1].Dsl != want {
				t.Fatalf("expression %q, want %q", f.searches[len(f.searches)-1].Dsl, want)
			}
			// Only invalid names: nothing matches, and nothing is sent.
			before := len(f.searches)
			got, err = sr.run(docqa.Query{TopK: 3, Documents: []string{"bogus"}})
			if err != nil || len(got) != 0 || len(f.searches) != before {
				t.Fatalf("only invalid names: %v, %v, %d requests", got, err, len(f.searches)-before)
			}
		})
	}
}

// The lexical and the vector search of one question, sharing a search
// memo (the retriever gives each question one), read the readable
// documents once between them, and filter as they do without it: the
// reader's own copy of A still hides the shared one.
func TestSearchMemoReadsTheReadableDocumentsOnce(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	sharedA := docqa.Document{FileName: "a.pdf", FileMD5: md5A, Chunks: 1, CreatedAt: t0}.Owned(docqa.SharedOwner)
	sharedChunk := docqa.Chunk{ID: docqa.OwnedChunkID(docqa.SharedOwner, md5A, 0), Page: 1, Text: "pump seal", Embedding: vec(1)}
	mustUpsert(t, s, sharedA, []docqa.Chunk{sharedChunk}, "e")
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "pump seal", vec(1))}, "e")
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0, 1), []docqa.Chunk{chunk(md5B, 0, 1, "pump gasket", vec(1, 1))}, "e")

	readable := func() (n int) {
		for _, q := range f.queries {
			if strings.HasPrefix(q.Expr, firstChunkExpr+" && ") {
				n++
			}
		}
		return n
	}
	// question runs both searches and returns the filters they sent and
	// the documents of their hits, and how often the readable documents
	// were read.
	question := func(ctx context.Context) (filters []string, hits []docqa.Document, reads int) {
		before, searches := readable(), len(f.searches)
		text, err := s.SearchText(ctx, "pump", docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		vector, err := s.Search(ctx, vec(1), docqa.Query{TopK: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range f.searches[searches:] {
			filters = append(filters, r.Dsl)
		}
		for _, h := range append(text, vector...) {
			hits = append(hits, h.Document)
		}
		return filters, hits, readable() - before
	}

	ctx := context.Background()
	plainFilters, plainHits, reads := question(ctx)
	if reads != 2 {
		t.Fatalf("without a memo: %d reads of the readable documents, want one per search", reads)
	}
	memoFilters, memoHits, reads := question(docqa.WithSearchMemo(ctx))
	if reads != 1 {
		t.Fatalf("with a memo: %d reads of the readable documents, want 1", reads)
	}
	want := `(metadata["owner"] == 1 || (metadata["owner"] == 0 && metadata["fileMd5"] not in ["` + md5A + `"]))`
	if !slices.Equal(memoFilters, plainFilters) || len(memoFilters) != 2 || memoFilters[0] != want || memoFilters[1] != want {
		t.Fatalf("filters with a memo %q, without %q; want %q twice", memoFilters, plainFilters, want)
	}
	if len(memoHits) != 4 || !slices.Equal(memoHits, plainHits) {
		t.Fatalf("hits with a memo %v, without %v", memoHits, plainHits)
	}
	for _, d := range memoHits {
		if d.Owner != 1 {
			t.Fatalf("a hit of the shared copy: %+v", d)
		}
	}
}

func TestTitleAndHeadingRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	titled := docqa.Document{Owner: 1, FileName: "om.pdf", Title: "Owner's Manual", FileMD5: md5A, Chunks: 1, CreatedAt: t0}
	untitled := docqa.Document{Owner: 1, FileName: "notes.pdf", FileMD5: md5B, Chunks: 1, CreatedAt: t0.Add(time.Hour)}
	mustUpsert(t, s, titled, []docqa.Chunk{{ID: docqa.ChunkID(md5A, 0), Page: 4, Heading: "Brakes / Pads", Text: "replace the pads", Embedding: vec(1)}}, "e")
	mustUpsert(t, s, untitled, []docqa.Chunk{{ID: docqa.ChunkID(md5B, 0), Page: 1, Text: "notes on wipers", Embedding: vec(0, 1)}}, "e")

	check := func(t *testing.T, how string, hits []docqa.ScoredChunk, err error) {
		t.Helper()
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s: %v, %v", how, hits, err)
		}
		h := hits[0]
		if h.Chunk.Heading != "Brakes / Pads" || h.Document.Title != "Owner's Manual" || h.Chunk.Page != 4 {
			t.Fatalf("%s: heading %q, title %q, page %d", how, h.Chunk.Heading, h.Document.Title, h.Chunk.Page)
		}
	}
	hits, err := s.Search(ctx, vec(1), docqa.Query{TopK: 1})
	check(t, "Search", hits, err)
	// "owner" is only in the title, "pads" in the heading and the text.
	hits, err = s.SearchText(ctx, "owner pads", docqa.Query{TopK: 1})
	check(t, "SearchText", hits, err)

	doc, err := s.Document(ctx, md5A)
	if err != nil || doc.Title != "Owner's Manual" {
		t.Fatalf("Document = %+v, %v", doc, err)
	}
	docs, err := s.Documents(ctx)
	if err != nil || len(docs) != 2 || docs[0].Title != "" || docs[1].Title != "Owner's Manual" {
		t.Fatalf("Documents = %+v, %v; want the untitled one with no title (not its display title)", docs, err)
	}
	// The untitled document is found by its file name, its display title.
	if hits, err := s.SearchText(ctx, "notes", docqa.Query{TopK: 1}); err != nil || len(hits) != 1 || hits[0].Document.FileMD5 != md5B {
		t.Fatalf("SearchText(notes) = %v, %v", hits, err)
	}
	var m map[string]any
	if err := json.Unmarshal(f.row(docqa.ChunkID(md5A, 0)).meta, &m); err != nil || m["title"] != "Owner's Manual" || m["heading"] != "Brakes / Pads" {
		t.Fatalf("metadata %v, %v", m, err)
	}
}

// oldCollection is a four-field vector_store with a row of ours (written
// by the store) and a row of another program.
func oldCollection(t *testing.T) (*fakeMilvus, *Store) {
	t.Helper()
	f := newFake().withCollection(oldSchema())
	f.put("vector_store", fakeRow{id: "foreign-1", content: "Torque the wheel bolts to 120 Nm",
		meta: []byte(`{"source":"spring","fileName":"w.pdf"}`), vec: vec(0, 1)})
	s := newStore(t, f)
	doc := docqa.Document{Owner: 1, FileName: "wheels.pdf", Title: "Wheel Guide", FileMD5: md5A, Chunks: 1, CreatedAt: t0}
	mustUpsert(t, s, doc, []docqa.Chunk{{ID: docqa.ChunkID(md5A, 0), Page: 2, Heading: "Tyres", Text: "check the pressure monthly", Embedding: vec(1)}}, "e")
	return f, s
}

func TestOldCollectionIsVectorOnlyUntilReindex(t *testing.T) {
	ctx := context.Background()
	f, s := oldCollection(t)
	ours, foreign := docqa.ChunkID(md5A, 0), "foreign-1"

	if s.LexicalIndex() {
		t.Fatal("LexicalIndex of a four-field collection")
	}
	for _, q := range f.queries {
		if slices.Contains(q.OutputFields, "sparse") {
			t.Fatalf("asked a four-field collection for sparse vectors: %v", q)
		}
	}
	if n := len(f.upserts[0].FieldsData); n != 4 {
		t.Fatalf("upsert into a four-field collection sent %d columns", n)
	}
	hits, err := s.Search(ctx, vec(1), docqa.Query{TopK: 5})
	// The foreign row answers no search: no owner filter matches it.
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != ours {
		t.Fatalf("vector search: %v, %v", hits, err)
	}
	searches := len(f.searches)
	if _, err := s.SearchText(ctx, "pressure", docqa.Query{TopK: 5}); !errors.Is(err, docqa.ErrNoLexicalIndex) {
		t.Fatalf("SearchText on a four-field collection: %v, want ErrNoLexicalIndex", err)
	}
	if len(f.searches) != searches {
		t.Fatal("SearchText without a lexical index sent a request")
	}
	oldRows := map[string]fakeRow{}
	f.mu.Lock()
	maps.Copy(oldRows, f.colls["vector_store"].rows)
	f.mu.Unlock()

	if err := s.Reindex(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("Reindex: %v", err)
	}

	f.mu.Lock()
	newColl, kept, tmp := f.colls["vector_store"], f.colls["vector_store_before_reindex"], f.colls["vector_store_reindex"]
	f.mu.Unlock()
	if tmp != nil || newColl == nil || kept == nil {
		t.Fatalf("collections after the reindex: new %v, kept %v, building %v", newColl != nil, kept != nil, tmp != nil)
	}
	if len(newColl.schema.Fields) != 5 || newColl.schema.Fields[4].Name != "sparse" || len(kept.schema.Fields) != 4 {
		t.Fatalf("schemas: new has %d fields, kept %d", len(newColl.schema.Fields), len(kept.schema.Fields))
	}
	if !maps.EqualFunc(kept.rows, oldRows, func(a, b fakeRow) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) || kept.loaded {
		t.Fatalf("the old collection changed or is still loaded (%v)", kept.loaded)
	}
	checkIndexes(t, f, "vector_store_reindex")
	if len(f.renames) != 2 ||
		f.renames[0].OldName != "vector_store" || f.renames[0].NewName != "vector_store_before_reindex" ||
		f.renames[1].OldName != "vector_store_reindex" || f.renames[1].NewName != "vector_store" {
		t.Fatalf("renames %v", f.renames)
	}
	if len(f.flushes) != 1 || f.flushes[0].CollectionNames[0] != "vector_store_reindex" {
		t.Fatalf("flushes %v", f.flushes)
	}
	// Every row is copied as it was, with its sparse vector: ours from the
	// title and heading in its metadata and its content, the foreign one
	// from its content alone.
	wantSparse := map[string]entity.SparseEmbedding{
		ours:    chunkVector("Wheel Guide", "Tyres", "check the pressure monthly"),
		foreign: chunkVector("", "", "Torque the wheel bolts to 120 Nm"),
	}
	if len(newColl.rows) != len(oldRows) {
		t.Fatalf("%d rows copied of %d", len(newColl.rows), len(oldRows))
	}
	for id, old := range oldRows {
		r := newColl.rows[id]
		if r.content != old.content || string(r.meta) != string(old.meta) || !slices.Equal(r.vec, old.vec) {
			t.Fatalf("row %s copied as %+v", id, r)
		}
		if !maps.Equal(r.sparse, sparseMap(wantSparse[id])) {
			t.Fatalf("row %s sparse %v, want %v", id, r.sparse, sparseMap(wantSparse[id]))
		}
	}

	if !s.LexicalIndex() {
		t.Fatal("LexicalIndex false after the reindex")
	}
	// The foreign row got its sparse vector (above) but no owner: it
	// answers no search.
	hits, err = s.SearchText(ctx, "torque", docqa.Query{TopK: 5})
	if err != nil || len(hits) != 0 {
		t.Fatalf("SearchText(torque) = %v, %v; want none (only the foreign row has the word)", hits, err)
	}
	hits, err = s.SearchText(ctx, "tyres wheel", docqa.Query{TopK: 5})
	if err != nil || len(hits) != 1 || hits[0].Chunk.ID != ours || hits[0].Chunk.Heading != "Tyres" || hits[0].Document.Title != "Wheel Guide" {
		t.Fatalf("SearchText(tyres wheel) = %v, %v", hits, err)
	}
	// The store writes the new schema from now on and counts what it writes.
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0, 1), []docqa.Chunk{chunk(md5B, 0, 1, "wheel", vec(1))}, "e")
	if n := len(f.upserts[len(f.upserts)-1].FieldsData); n != 5 {
		t.Fatalf("upsert after the reindex sent %d columns", n)
	}
	if s.stats.chunks != 3 || s.stats.df[termOf("wheel")] != 3 {
		t.Fatalf("after the reindex and an upsert: %d chunks, df(wheel) %d; want 3 and 3", s.stats.chunks, s.stats.df[termOf("wheel")])
	}
	// What relevance weighs a question's words by (docqa.TermCounter).
	if df, n, err := s.DocFreq(ctx, []string{"wheel", "turbocharg"}); err != nil || n != 3 || !slices.Equal(df, []int{3, 0}) {
		t.Fatalf("DocFreq(wheel, turbocharg) = %v, %d, %v; want [3 0], 3", df, n, err)
	}
	// A second reindex has nothing to do.
	if err := s.Reindex(ctx, nil); err != nil || len(f.renames) != 2 {
		t.Fatalf("second Reindex: %v, %d renames", err, len(f.renames))
	}
}

func TestReindexRefusesWhenItsCollectionsExist(t *testing.T) {
	for _, existing := range []string{"vector_store_before_reindex", "vector_store_reindex"} {
		t.Run(existing, func(t *testing.T) {
			f, s := oldCollection(t)
			f.withCollection(Schema(existing))
			err := s.Reindex(context.Background(), nil)
			if err == nil || !strings.Contains(err.Error(), existing) || !strings.Contains(err.Error(), "drop it") {
				t.Fatalf("Reindex = %v, want a refusal that names %s and says to drop it", err, existing)
			}
			if len(f.creates) != 0 || len(f.renames) != 0 || len(f.drops) != 0 || s.LexicalIndex() {
				t.Fatalf("a refused reindex did something: %d creates, %d renames, %d drops", len(f.creates), len(f.renames), len(f.drops))
			}
		})
	}
}

func TestReindexFailureLeavesTheCollection(t *testing.T) {
	ctx := context.Background()
	for _, method := range []string{"Upsert", "Flush", "RenameCollection"} {
		t.Run(method, func(t *testing.T) {
			f, s := oldCollection(t)
			f.fail(method, codes.Internal)
			err := s.Reindex(ctx, nil)
			if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("Reindex with %s failing: %v", method, err)
			}
			f.mu.Lock()
			coll, tmp := f.colls["vector_store"], f.colls["vector_store_reindex"]
			f.mu.Unlock()
			if tmp != nil || coll == nil || len(coll.schema.Fields) != 4 || len(coll.rows) != 2 || s.LexicalIndex() {
				t.Fatalf("after a failed reindex: building collection kept %v, collection %v", tmp != nil, coll)
			}
			hits, err := s.Search(ctx, vec(1), docqa.Query{TopK: 5})
			if err != nil || len(hits) != 1 {
				t.Fatalf("vector search after a failed reindex: %v, %v", hits, err)
			}
			f.mu.Lock()
			delete(f.failures, method)
			f.mu.Unlock()
			if err := s.Reindex(ctx, nil); err != nil || !s.LexicalIndex() {
				t.Fatalf("Reindex once the failure is gone: %v", err)
			}
		})
	}
}

func TestReindexPutsTheOldCollectionBackWhenTheSwitchFails(t *testing.T) {
	ctx := context.Background()
	f, s := oldCollection(t)
	f.mu.Lock()
	f.failRenameOf = "vector_store_reindex"
	f.mu.Unlock()
	err := s.Reindex(ctx, nil)
	if !errors.Is(err, docqa.ErrUnavailable) || !strings.Contains(err.Error(), "vector_store_reindex to vector_store") {
		t.Fatalf("Reindex with the second rename failing: %v", err)
	}
	var renamed []string
	for _, r := range f.renames {
		renamed = append(renamed, r.OldName+">"+r.NewName)
	}
	want := []string{"vector_store>vector_store_before_reindex", "vector_store_reindex>vector_store", "vector_store_before_reindex>vector_store"}
	if !slices.Equal(renamed, want) {
		t.Fatalf("renames %v, want %v", renamed, want)
	}
	f.mu.Lock()
	coll, tmp, kept := f.colls["vector_store"], f.colls["vector_store_reindex"], f.colls["vector_store_before_reindex"]
	f.mu.Unlock()
	if coll == nil || len(coll.schema.Fields) != 4 || len(coll.rows) != 2 || tmp != nil || kept != nil || s.LexicalIndex() {
		t.Fatal("the old collection is not back in place alone")
	}
	if hits, err := s.Search(ctx, vec(1), docqa.Query{TopK: 5}); err != nil || len(hits) != 1 {
		t.Fatalf("vector search after the failed switch: %v, %v", hits, err)
	}
	mustUpsert(t, s, newDoc(md5B, "b.pdf", t0, 1), []docqa.Chunk{chunk(md5B, 0, 1, "b", vec(1))}, "e")
	if n := len(f.upserts[len(f.upserts)-1].FieldsData); n != 4 {
		t.Fatalf("upsert after the failed switch sent %d columns, want 4", n)
	}
}

func TestReindexRefusesRowsWrittenDuringTheCopy(t *testing.T) {
	f, s := oldCollection(t)
	// Another program's row lands between the count and the copy: the
	// fake counts it only after the count query (see below).
	f.mu.Lock()
	f.afterCount = func() {
		f.colls["vector_store"].rows["late"] = fakeRow{id: "late", content: "late", meta: []byte(`{}`), vec: vec(1)}
	}
	f.mu.Unlock()
	err := s.Reindex(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "copied 3 rows, the collection had 2") {
		t.Fatalf("Reindex = %v, want the row counts to differ", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.colls["vector_store_reindex"] != nil || len(f.renames) != 0 || s.lexical {
		t.Fatal("a reindex that missed rows went on")
	}
}

// TestWriteWaitingBehindAnotherGivesUp: a write waiting for another one
// (a long Reindex, say) ends with its context.
func TestWriteWaitingBehindAnotherGivesUp(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	if err := s.lockWrites(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.Upsert(ctx, newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "a", vec(1))}, "e")
	if !errors.Is(err, context.DeadlineExceeded) || len(f.upserts) != 0 {
		t.Fatalf("Upsert behind another write: %v, %d requests", err, len(f.upserts))
	}
	if err := s.Delete(ctx, 1, md5A); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Delete behind another write: %v", err)
	}
	s.unlockWrites()
	mustUpsert(t, s, newDoc(md5A, "a.pdf", t0, 1), []docqa.Chunk{chunk(md5A, 0, 1, "a", vec(1))}, "e")
}

func TestOwners(t *testing.T) {
	storetest.Owners(t, func(t *testing.T) docqa.VectorStore { return newStore(t, newFake()) })
}

func TestPageLabels(t *testing.T) {
	storetest.PageLabels(t, func(t *testing.T) docqa.VectorStore { return newStore(t, newFake()) }, nil)
}

// TestAdoptsRowsWithoutAnOwner: a collection written before documents had
// owners becomes the built-in user's when the store opens, with every other
// metadata key, the content and the vectors as they were; rows of another
// program stay untouched.
func TestAdoptsRowsWithoutAnOwner(t *testing.T) {
	f := newFake().withCollection(Schema("vector_store"))
	ours := `{"fileName":"a.pdf","title":"","fileMd5":"` + md5A + `","page":2,"chunkIndex":0,"heading":"","size":10,` +
		`"pages":3,"chunks":1,"truncated":false,"createdAt":"2026-11-22T10:00:00Z","embedder":"e","custom":"kept"}`
	f.put("vector_store", fakeRow{id: docqa.ChunkID(md5A, 0), content: "oil change", meta: []byte(ours), vec: vec(1), sparse: map[uint32]float32{7: 1}})
	f.put("vector_store", fakeRow{id: "foreign", content: "other", meta: []byte(`{"source":"x"}`), vec: vec(1), sparse: map[uint32]float32{9: 1}})

	s := newStore(t, f)
	r := f.row(docqa.ChunkID(md5A, 0))
	var m map[string]any
	if err := json.Unmarshal(r.meta, &m); err != nil {
		t.Fatal(err)
	}
	if m["owner"] != 1.0 || m["custom"] != "kept" || m["fileName"] != "a.pdf" || len(m) != 14 {
		t.Fatalf("adopted metadata %v", m)
	}
	if r.content != "oil change" || r.vec[0] != 1 || fmt.Sprint(r.sparse) != fmt.Sprint(map[uint32]float32{7: 1}) {
		t.Fatalf("adopted row changed: %+v", r)
	}
	if got := f.row("foreign"); string(got.meta) != `{"source":"x"}` {
		t.Fatalf("foreign row changed: %s", got.meta)
	}
	if d, err := s.Document(context.Background(), md5A); err != nil || d.Owner != 1 || d.Shared {
		t.Fatalf("Document of the built-in user = %+v, %v", d, err)
	}
	other := auth.WithIdentity(context.Background(), auth.Identity{UserID: 2})
	if _, err := s.Document(other, md5A); !errors.Is(err, docqa.ErrNotFound) {
		t.Fatalf("Document of another user = %v, want ErrNotFound", err)
	}

	// A second open finds every row of ours owned and writes nothing.
	upserts := len(f.upserts)
	newStore(t, f)
	if len(f.upserts) != upserts {
		t.Fatalf("a second open wrote %d upserts", len(f.upserts)-upserts)
	}
}

// Rows written before page labels have none; a label of another type is
// dropped without losing the row's other fields.
func TestParseMetadataPageLabel(t *testing.T) {
	for _, tc := range []struct {
		js        string
		label     string
		chunkPage int
	}{
		{`{"fileMd5":"` + md5A + `","page":3,"chunkIndex":0}`, "", 3},
		{`{"fileMd5":"` + md5A + `","page":3,"pageLabel":"iii"}`, "iii", 3},
		{`{"fileMd5":"` + md5A + `","page":3,"pageLabel":5}`, "", 3},
	} {
		m := parseMetadata([]byte(tc.js))
		if m.PageLabel != tc.label || m.Page != tc.chunkPage || m.FileMD5 != md5A {
			t.Errorf("parseMetadata(%s) = label %q page %d md5 %q; want %q, %d", tc.js, m.PageLabel, m.Page, m.FileMD5, tc.label, tc.chunkPage)
		}
	}
}

// Whether a chunk was read by OCR travels in its metadata ("ocr", left out
// when false); a row without it, as rows written before OCR, reads false.
func TestOCRFlagRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFake()
	s := newStore(t, f)
	doc := docqa.Document{Owner: 1, FileName: "scan.pdf", FileMD5: md5A, Chunks: 2, CreatedAt: t0}
	mustUpsert(t, s, doc, []docqa.Chunk{
		{ID: docqa.ChunkID(md5A, 0), Page: 1, Index: 0, Text: "engine oil level", Embedding: vec(1), Navigation: true},
		{ID: docqa.ChunkID(md5A, 1), Page: 2, Index: 1, Text: "engine oil grade", Embedding: vec(0, 1), OCR: true,
			Rects: []docqa.Rect{{X: 0.08174, Y: 0.1, W: 0.5, H: 0.012}, {X: 0.08, Y: 0.115, W: 0.3, H: 0.012}}},
	}, "e")
	// Kept to four decimals, in the metadata as [x,y,w,h] in ten-thousandths.
	wantRects := []docqa.Rect{{X: 0.0817, Y: 0.1, W: 0.5, H: 0.012}, {X: 0.08, Y: 0.115, W: 0.3, H: 0.012}}
	for how, search := range map[string]func() ([]docqa.ScoredChunk, error){
		"Search":     func() ([]docqa.ScoredChunk, error) { return s.Search(ctx, vec(1, 1), docqa.Query{TopK: 5}) },
		"SearchText": func() ([]docqa.ScoredChunk, error) { return s.SearchText(ctx, "engine oil", docqa.Query{TopK: 5}) },
	} {
		hits, err := search()
		if err != nil || len(hits) != 2 {
			t.Fatalf("%s: %d hits, %v", how, len(hits), err)
		}
		for _, h := range hits {
			if h.Chunk.OCR != (h.Chunk.Index == 1) || h.Chunk.Navigation != (h.Chunk.Index == 0) {
				t.Fatalf("%s: chunk %d has OCR %v, navigation %v", how, h.Chunk.Index, h.Chunk.OCR, h.Chunk.Navigation)
			}
			want := map[int][]docqa.Rect{1: wantRects}[h.Chunk.Index]
			if !slices.EqualFunc(h.Chunk.Rects, want, func(a, b docqa.Rect) bool {
				return math.Abs(a.X-b.X) < 1e-6 && math.Abs(a.Y-b.Y) < 1e-6 && math.Abs(a.W-b.W) < 1e-6 && math.Abs(a.H-b.H) < 1e-6
			}) {
				t.Fatalf("%s: chunk %d has rects %v, want %v", how, h.Chunk.Index, h.Chunk.Rects, want)
			}
		}
	}
	if m := parseMetadata([]byte(`{"fileMd5":"` + md5A + `","page":1}`)); m.OCR || m.Navigation || m.Rects != nil {
		t.Fatal("metadata without ocr, navigation or rects read as OCR, navigation or with rects")
	}
	if m := parseMetadata([]byte(`{"fileMd5":"` + md5A + `","ocr":true,"rects":[[817,1000,5000,120]]}`)); !slices.Equal(m.Rects, [][4]int{{817, 1000, 5000, 120}}) {
		t.Fatalf("rects read %v", m.Rects)
	}
	if m := parseMetadata([]byte(`{"fileMd5":"` + md5A + `","page":"1","rects":"not rects"}`)); m.Rects != nil || m.FileMD5 != md5A {
		t.Fatalf("rects of another type read %v, md5 %q", m.Rects, m.FileMD5)
	}
	if m := parseMetadata([]byte(`{"fileMd5":"` + md5A + `","page":"1","ocr":true,"navigation":true}`)); !m.OCR || !m.Navigation {
		t.Fatal("ocr or navigation lost when another field has another type")
	}
}

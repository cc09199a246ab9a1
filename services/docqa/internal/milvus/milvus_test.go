package milvus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/carhub/backend/services/docqa/internal/docqa"
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
	return docqa.Document{FileName: name, FileMD5: md5, Size: 1000, Pages: 2, Chunks: chunks, CreatedAt: created}
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
	}
	if !slices.Equal(order, []string{"doc_id", "content", "metadata", "embedding"}) {
		t.Fatalf("fields %v", order)
	}
	for name, w := range want {
		g := got[name]
		if g.typ != w.typ || g.pk != w.pk || g.auto != w.auto || fmt.Sprint(g.params) != fmt.Sprint(w.params) {
			t.Errorf("field %s = %+v, want %+v", name, g, w)
		}
	}

	if len(f.createIndexes) != 1 {
		t.Fatalf("%d CreateIndex calls, want 1", len(f.createIndexes))
	}
	idx := f.createIndexes[0]
	if idx.CollectionName != "vector_store" || idx.FieldName != "embedding" {
		t.Fatalf("index on %s.%s", idx.CollectionName, idx.FieldName)
	}
	params := map[string]string{}
	for _, kv := range idx.ExtraParams {
		params[kv.Key] = kv.Value
	}
	if params["index_type"] != "IVF_FLAT" || params["metric_type"] != "COSINE" {
		t.Fatalf("index params %v, want IVF_FLAT and COSINE", params)
	}
	var build map[string]any
	if err := json.Unmarshal([]byte(params["params"]), &build); err != nil {
		t.Fatalf("index build params %q: %v", params["params"], err)
	}
	if fmt.Sprint(build["nlist"]) != "1024" {
		t.Fatalf("nlist %v, want 1024", build["nlist"])
	}

	if len(f.loads) != 1 || f.loads[0].CollectionName != "vector_store" {
		t.Fatalf("LoadCollection calls %v, want one for vector_store", f.loads)
	}
}

func TestKeepsAnExistingCollection(t *testing.T) {
	// A collection another stack created (it may have other lengths and
	// extra fields) with a row already in it.
	sch := Schema("vector_store")
	sch.Fields[1].TypeParams["max_length"] = "4096"
	sch.WithField(entity.NewField().WithName("extra").WithDataType(entity.FieldTypeInt64))
	f := newFake().withCollection(sch)
	// Its metadata has other keys, and "page" of another type.
	f.rows["existing"] = fakeRow{id: "existing", content: "kept", meta: []byte(`{"source":"spring","fileName":"x.pdf","page":"3"}`), vec: vec(1)}

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
	hits, err := s.Search(context.Background(), vec(1), 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search over a foreign row: %v, %v", hits, err)
	}
	if h := hits[0]; h.Chunk.ID != "existing" || h.Chunk.Text != "kept" || h.Document.FileName != "x.pdf" || h.Chunk.Page != 0 {
		t.Fatalf("foreign row read as %+v", h)
	}
	// Foreign rows carry no embedder record: the collection counts as empty
	// of ours, and documents are only ours.
	if name, err := s.Embedder(context.Background()); err != nil || name != "" {
		t.Fatalf("Embedder = %q, %v", name, err)
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
	doc := docqa.Document{FileName: "Handbuch ü.pdf", FileMD5: md5A, Size: 12345, Pages: 7, Chunks: 2, Truncated: true,
		CreatedAt: time.Date(2026, 11, 22, 11, 0, 0, 500, time.FixedZone("CET", 3600))}
	mustUpsert(t, s, doc, []docqa.Chunk{
		chunk(md5A, 0, 1, "first", vec(1, 2, 3)),
		{Page: 3, Index: 1, Text: "second, no id given", Embedding: vec(4, 5, 6)},
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
	if len(cols) != 4 {
		t.Fatalf("columns %v, want the 4 fields", len(cols))
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
		"fileName": "Handbuch ü.pdf", "fileMd5": md5A, "page": 3.0, "chunkIndex": 1.0,
		"size": 12345.0, "pages": 7.0, "chunks": 2.0, "truncated": true,
		"createdAt": "2026-11-22T10:00:00.0000005Z", "embedder": "openai:bge-m3",
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Fatalf("metadata\n got %v\nwant %v", m, want)
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

	got, err := s.Search(context.Background(), vec(1, 0), 3)
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

func TestSearchEdges(t *testing.T) {
	f := newFake()
	s := newStore(t, f)
	ctx := context.Background()
	if got, err := s.Search(ctx, vec(), 3); err != nil || len(got) != 0 {
		t.Fatalf("zero vector: %v, %v", got, err)
	}
	if _, err := s.Search(ctx, []float32{1}, 3); !errors.Is(err, docqa.ErrDimension) {
		t.Fatalf("short vector: %v", err)
	}
	if _, err := s.Search(ctx, vec(1), 0); err == nil {
		t.Fatal("topK 0 accepted")
	}
	if len(f.searches) != 0 {
		t.Fatalf("%d requests sent for searches refused before sending", len(f.searches))
	}
	if got, err := s.Search(ctx, vec(1), 5); err != nil || len(got) != 0 {
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
	if last.Expr != `metadata["chunkIndex"] == 0` || !slices.Contains(last.OutputFields, "metadata") {
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
	if want := `metadata["fileMd5"] == "` + md5A + `" && metadata["chunkIndex"] == 0`; last.Expr != want {
		t.Fatalf("Document query %q, want %q", last.Expr, want)
	}
	if !hasParam(last, "limit", "1") {
		t.Fatalf("Document query params %v, want limit 1", last.QueryParams)
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
			err := s.Delete(ctx, tc.md5)
			if (tc.err == nil) != (err == nil) || !errors.Is(err, tc.err) {
				t.Fatalf("Delete = %v, want %v", err, tc.err)
			}
			if sent := len(f.deletes) - before; sent != tc.deletes {
				t.Fatalf("%d Delete requests, want %d", sent, tc.deletes)
			}
		})
	}
	if want := `metadata["fileMd5"] == "` + md5A + `"`; f.deletes[0].Expr != want || f.deletes[0].CollectionName != "vector_store" {
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
		if err := s.Delete(ctx, md5); err != nil {
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
		{"Search", func(s *Store) error { _, err := s.Search(ctx, vec(1), 3); return err }},
		{"Query", func(s *Store) error { _, err := s.Documents(ctx); return err }},
		{"Query", func(s *Store) error { _, err := s.Document(ctx, md5A); return err }},
		{"Query", func(s *Store) error { _, err := s.Embedder(ctx); return err }},
		{"Delete", func(s *Store) error { return s.Delete(ctx, md5A) }},
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
	for _, method := range []string{"HasCollection", "CreateIndex", "LoadCollection"} {
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
	if hits, err := s.Search(context.Background(), vec(1), 2); err != nil || len(hits) != 2 {
		t.Fatalf("search over TCP: %v, %v", hits, err)
	}

	srv.Stop()
	if err := s.Ping(context.Background()); !errors.Is(err, docqa.ErrUnavailable) {
		t.Fatalf("Ping after the server stopped: %v", err)
	}
	if _, err := s.Search(context.Background(), vec(1), 2); !errors.Is(err, docqa.ErrUnavailable) {
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

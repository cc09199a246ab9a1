package milvus

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/milvus-io/milvus-proto/go-api/v2/commonpb"
	"github.com/milvus-io/milvus-proto/go-api/v2/milvuspb"
	"github.com/milvus-io/milvus-proto/go-api/v2/schemapb"
	"github.com/milvus-io/milvus-sdk-go/v2/client"
	"github.com/milvus-io/milvus-sdk-go/v2/entity"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"

	"github.com/carhub/backend/services/docqa/internal/docqa"
)

// fakeMilvus is an in-process Milvus: it answers the RPCs the store uses
// over real gRPC, keeps collections and their rows in memory, searches them
// exactly (cosine over the dense field, inner product over the sparse one),
// and records every request so tests can check what the store sent.
// Expressions are evaluated for the forms the store and the SDK's query
// iterator write (see parseExpr); anything else is answered with an error, as
// a real server answers an expression it cannot parse.
type fakeMilvus struct {
	milvuspb.UnimplementedMilvusServiceServer

	mu       sync.Mutex
	colls    map[string]*fakeColl
	healthy  bool
	failures map[string]codes.Code // method → error to answer
	// failuresLeft[method] > 0: that many more answers fail, then the
	// method works again (a transient failure).
	failuresLeft map[string]int
	// upsertsOK > 0: the Upsert requests after that many fail.
	upsertsOK int
	// failRenameOf: renaming the collection of that name fails.
	failRenameOf string
	// clock is the timestamp of the last write; each write gets the next.
	clock uint64
	// afterCount, when set, runs once after the next count(*) query is
	// answered (with f.mu held): a write that lands right after it.
	afterCount func()

	connects      []*milvuspb.ConnectRequest
	creates       []*milvuspb.CreateCollectionRequest
	createIndexes []*milvuspb.CreateIndexRequest
	loads         []*milvuspb.LoadCollectionRequest
	releases      []*milvuspb.ReleaseCollectionRequest
	flushes       []*milvuspb.FlushRequest
	renames       []*milvuspb.RenameCollectionRequest
	drops         []*milvuspb.DropCollectionRequest
	upserts       []*milvuspb.UpsertRequest
	searches      []*milvuspb.SearchRequest
	queries       []*milvuspb.QueryRequest
	deletes       []*milvuspb.DeleteRequest
}

type fakeColl struct {
	schema  *schemapb.CollectionSchema
	rows    map[string]fakeRow
	indexes map[string][]*commonpb.KeyValuePair // field → index parameters
	loaded  bool
}

type fakeRow struct {
	id, content string
	meta        []byte
	vec         []float32
	sparse      map[uint32]float32 // nil in a collection without the sparse field
}

func newFake() *fakeMilvus {
	return &fakeMilvus{colls: map[string]*fakeColl{}, healthy: true, failures: map[string]codes.Code{}, failuresLeft: map[string]int{}}
}

// serve starts the fake on a bufconn listener and returns a connected SDK
// client; both stop when the test ends.
func (f *fakeMilvus) serve(t *testing.T) client.Client {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	milvuspb.RegisterMilvusServiceServer(srv, f)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	c, err := client.NewClient(context.Background(), client.Config{
		Address: "bufnet",
		DialOptions: []grpc.DialOption{
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(context.Context, string) (net.Conn, error) { return lis.Dial() }),
		},
	})
	if err != nil {
		t.Fatalf("connecting to the fake server: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// withCollection gives the fake an existing collection with schema sch, its
// vector fields indexed (with the parameters New would give them).
func (f *fakeMilvus) withCollection(sch *entity.Schema) *fakeMilvus {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &fakeColl{schema: sch.ProtoMessage(), rows: map[string]fakeRow{}, indexes: map[string][]*commonpb.KeyValuePair{}}
	for _, fd := range c.schema.Fields {
		switch fd.DataType {
		case schemapb.DataType_FloatVector:
			c.indexes[fd.Name] = entity.MapKvPairs(map[string]string{"index_type": "IVF_FLAT", "metric_type": string(Metric)})
		case schemapb.DataType_SparseFloatVector:
			c.indexes[fd.Name] = entity.MapKvPairs(map[string]string{"index_type": "SPARSE_INVERTED_INDEX", "metric_type": string(SparseMetric)})
		}
	}
	f.colls[sch.CollectionName] = c
	return f
}

// put stores a row in collection name as if another program had written it.
func (f *fakeMilvus) put(name string, r fakeRow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.colls[name].rows[r.id] = r
}

// coll returns the named collection, nil when absent; the caller holds f.mu.
func (f *fakeMilvus) coll(name string) *fakeColl { return f.colls[name] }

func (f *fakeMilvus) fail(method string, code codes.Code) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = code
}

// failTimes makes the next n calls of method fail with code.
func (f *fakeMilvus) failTimes(method string, code codes.Code, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = code
	f.failuresLeft[method] = n
}

func (f *fakeMilvus) failure(method string) error {
	if code, ok := f.failures[method]; ok {
		if left, counted := f.failuresLeft[method]; counted {
			if left <= 1 {
				delete(f.failures, method)
				delete(f.failuresLeft, method)
			} else {
				f.failuresLeft[method] = left - 1
			}
		}
		return status.Errorf(code, "injected failure of %s", method)
	}
	return nil
}

var okStatus = &commonpb.Status{ErrorCode: commonpb.ErrorCode_Success}

func errStatus(code commonpb.ErrorCode, format string, args ...any) *commonpb.Status {
	return &commonpb.Status{ErrorCode: code, Reason: fmt.Sprintf(format, args...), Code: 1}
}

func notFound(name string) *commonpb.Status {
	return errStatus(commonpb.ErrorCode_CollectionNotExists, "collection %s not found", name)
}

func (f *fakeMilvus) tick() uint64 {
	f.clock++
	return f.clock
}

func (f *fakeMilvus) Connect(_ context.Context, req *milvuspb.ConnectRequest) (*milvuspb.ConnectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.connects = append(f.connects, req)
	// Without a server version the SDK takes the server for one older than
	// JSON fields and refuses to create the collection.
	return &milvuspb.ConnectResponse{
		Status:     okStatus,
		ServerInfo: &commonpb.ServerInfo{BuildTags: "v2.4.9", BuildTime: "fake"},
		Identifier: 1,
	}, nil
}

func (f *fakeMilvus) CheckHealth(context.Context, *milvuspb.CheckHealthRequest) (*milvuspb.CheckHealthResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure("CheckHealth"); err != nil {
		return nil, err
	}
	resp := &milvuspb.CheckHealthResponse{Status: okStatus, IsHealthy: f.healthy}
	if !f.healthy {
		resp.Reasons = []string{"querynode down"}
	}
	return resp, nil
}

func (f *fakeMilvus) HasCollection(_ context.Context, req *milvuspb.HasCollectionRequest) (*milvuspb.BoolResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failure("HasCollection"); err != nil {
		return nil, err
	}
	return &milvuspb.BoolResponse{Status: okStatus, Value: f.coll(req.CollectionName) != nil}, nil
}

func (f *fakeMilvus) CreateCollection(_ context.Context, req *milvuspb.CreateCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, req)
	if err := f.failure("CreateCollection"); err != nil {
		return nil, err
	}
	if f.coll(req.CollectionName) != nil {
		return errStatus(commonpb.ErrorCode_IllegalArgument, "collection %s already exists", req.CollectionName), nil
	}
	var sch schemapb.CollectionSchema
	if err := proto.Unmarshal(req.Schema, protoadapt.MessageV2Of(&sch)); err != nil {
		return errStatus(commonpb.ErrorCode_IllegalArgument, "schema: %v", err), nil
	}
	f.colls[req.CollectionName] = &fakeColl{schema: &sch, rows: map[string]fakeRow{}, indexes: map[string][]*commonpb.KeyValuePair{}}
	return okStatus, nil
}

func (f *fakeMilvus) DescribeCollection(_ context.Context, req *milvuspb.DescribeCollectionRequest) (*milvuspb.DescribeCollectionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.DescribeCollectionResponse{Status: notFound(req.CollectionName)}, nil
	}
	return &milvuspb.DescribeCollectionResponse{
		Status:           okStatus,
		Schema:           c.schema,
		CollectionID:     1,
		CollectionName:   req.CollectionName,
		ConsistencyLevel: commonpb.ConsistencyLevel_Bounded,
	}, nil
}

func (f *fakeMilvus) RenameCollection(_ context.Context, req *milvuspb.RenameCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.renames = append(f.renames, req)
	if err := f.failure("RenameCollection"); err != nil {
		return nil, err
	}
	if req.OldName == f.failRenameOf {
		return nil, status.Errorf(codes.Internal, "injected failure of renaming %s", req.OldName)
	}
	c := f.coll(req.OldName)
	if c == nil {
		return notFound(req.OldName), nil
	}
	if f.coll(req.NewName) != nil {
		return errStatus(commonpb.ErrorCode_IllegalArgument, "duplicated new collection name %s", req.NewName), nil
	}
	c.schema = protoadapt.MessageV1Of(proto.Clone(protoadapt.MessageV2Of(c.schema))).(*schemapb.CollectionSchema)
	c.schema.Name = req.NewName
	delete(f.colls, req.OldName)
	f.colls[req.NewName] = c
	return okStatus, nil
}

func (f *fakeMilvus) DropCollection(_ context.Context, req *milvuspb.DropCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drops = append(f.drops, req)
	delete(f.colls, req.CollectionName)
	return okStatus, nil
}

func (f *fakeMilvus) CreateIndex(_ context.Context, req *milvuspb.CreateIndexRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.createIndexes = append(f.createIndexes, req)
	if err := f.failure("CreateIndex"); err != nil {
		return nil, err
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return notFound(req.CollectionName), nil
	}
	c.indexes[req.FieldName] = req.ExtraParams
	return okStatus, nil
}

func (f *fakeMilvus) DescribeIndex(_ context.Context, req *milvuspb.DescribeIndexRequest) (*milvuspb.DescribeIndexResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.DescribeIndexResponse{Status: notFound(req.CollectionName)}, nil
	}
	var descs []*milvuspb.IndexDescription
	for field, params := range c.indexes {
		if req.FieldName == "" || req.FieldName == field {
			descs = append(descs, &milvuspb.IndexDescription{FieldName: field, Params: params, State: commonpb.IndexState_Finished})
		}
	}
	if len(descs) == 0 {
		return &milvuspb.DescribeIndexResponse{Status: errStatus(commonpb.ErrorCode_IndexNotExist, "index not found")}, nil
	}
	return &milvuspb.DescribeIndexResponse{Status: okStatus, IndexDescriptions: descs}, nil
}

func (f *fakeMilvus) LoadCollection(_ context.Context, req *milvuspb.LoadCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads = append(f.loads, req)
	if err := f.failure("LoadCollection"); err != nil {
		return nil, err
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return notFound(req.CollectionName), nil
	}
	// Milvus 2.4 loads a collection only when every vector field has an index.
	for _, fd := range c.schema.Fields {
		if isVectorType(fd.DataType) && c.indexes[fd.Name] == nil {
			return errStatus(commonpb.ErrorCode_IndexNotExist, "there is no vector index on field %s", fd.Name), nil
		}
	}
	c.loaded = true
	return okStatus, nil
}

func isVectorType(t schemapb.DataType) bool {
	return t == schemapb.DataType_FloatVector || t == schemapb.DataType_SparseFloatVector
}

func (f *fakeMilvus) ReleaseCollection(_ context.Context, req *milvuspb.ReleaseCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releases = append(f.releases, req)
	if c := f.coll(req.CollectionName); c != nil {
		c.loaded = false
	}
	return okStatus, nil
}

func (f *fakeMilvus) GetLoadingProgress(_ context.Context, req *milvuspb.GetLoadingProgressRequest) (*milvuspb.GetLoadingProgressResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	progress := int64(0)
	if c := f.coll(req.CollectionName); c != nil && c.loaded {
		progress = 100
	}
	return &milvuspb.GetLoadingProgressResponse{Status: okStatus, Progress: progress}, nil
}

// Flush has nothing to seal: it answers no segments, so the SDK does not wait.
func (f *fakeMilvus) Flush(_ context.Context, req *milvuspb.FlushRequest) (*milvuspb.FlushResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushes = append(f.flushes, req)
	if err := f.failure("Flush"); err != nil {
		return nil, err
	}
	return &milvuspb.FlushResponse{Status: okStatus}, nil
}

func (f *fakeMilvus) Upsert(_ context.Context, req *milvuspb.UpsertRequest) (*milvuspb.MutationResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.upserts = append(f.upserts, req)
	if err := f.failure("Upsert"); err != nil {
		return nil, err
	}
	if f.upsertsOK > 0 && len(f.upserts) > f.upsertsOK {
		return nil, status.Errorf(codes.Internal, "injected failure of Upsert %d", len(f.upserts))
	}
	bad := func(format string, args ...any) (*milvuspb.MutationResult, error) {
		return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, format, args...)}, nil
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.MutationResult{Status: notFound(req.CollectionName)}, nil
	}
	cols := map[string]entity.Column{}
	for _, fd := range req.FieldsData {
		col, err := entity.FieldDataColumn(fd, 0, -1)
		if err != nil {
			return bad("%v", err)
		}
		cols[fd.FieldName] = col
	}
	hasSparse := false
	for _, fd := range c.schema.Fields {
		if cols[fd.Name] == nil {
			return bad("field %s not passed", fd.Name)
		}
		hasSparse = hasSparse || fd.Name == FieldSparse
	}
	if len(cols) != len(c.schema.Fields) {
		return bad("%d columns for %d fields", len(cols), len(c.schema.Fields))
	}
	ids, ok1 := cols[FieldID].(*entity.ColumnVarChar)
	content, ok2 := cols[FieldContent].(*entity.ColumnVarChar)
	meta, ok3 := cols[FieldMetadata].(*entity.ColumnJSONBytes)
	vecs, ok4 := cols[FieldEmbedding].(*entity.ColumnFloatVector)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return bad("missing or mistyped columns")
	}
	var sparseRows []map[uint32]float32
	if hasSparse {
		col, ok := cols[FieldSparse].(*entity.ColumnSparseFloatVector)
		if !ok {
			return bad("column %s is not a sparse vector", FieldSparse)
		}
		for i, e := range col.Data() {
			// Milvus before 2.4.11 refuses empty rows, and 2^32-1 is no index.
			if e.Len() == 0 {
				return bad("empty sparse vector in row %d", i)
			}
			row := map[uint32]float32{}
			for j := range e.Len() {
				d, v, _ := e.Get(j)
				if d == math.MaxUint32 || v < 0 || math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					return bad("invalid sparse entry %d:%v in row %d", d, v, i)
				}
				if prev, _, _ := e.Get(j - 1); j > 0 && d <= prev {
					return bad("sparse indices of row %d are not sorted and unique", i)
				}
				row[d] = v
			}
			sparseRows = append(sparseRows, row)
		}
	}
	for i, id := range ids.Data() {
		if len(content.Data()[i]) > ContentMaxLength {
			return bad("content of %s exceeds max length", id)
		}
	}
	for i, id := range ids.Data() {
		r := fakeRow{id: id, content: content.Data()[i], meta: meta.Data()[i], vec: vecs.Data()[i]}
		if hasSparse {
			r.sparse = sparseRows[i]
		}
		c.rows[id] = r
	}
	return &milvuspb.MutationResult{
		Status:    okStatus,
		IDs:       &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids.Data()}}},
		UpsertCnt: int64(ids.Len()),
		Timestamp: f.tick(),
	}, nil
}

func (f *fakeMilvus) Delete(_ context.Context, req *milvuspb.DeleteRequest) (*milvuspb.MutationResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deletes = append(f.deletes, req)
	if err := f.failure("Delete"); err != nil {
		return nil, err
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.MutationResult{Status: notFound(req.CollectionName)}, nil
	}
	match, err := parseExpr(req.Expr)
	if err != nil {
		return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "%v", err)}, nil
	}
	n := int64(0)
	for id, r := range c.rows {
		if match(r) {
			delete(c.rows, id)
			n++
		}
	}
	return &milvuspb.MutationResult{Status: okStatus, DeleteCnt: n, Timestamp: f.tick()}, nil
}

func (f *fakeMilvus) Query(_ context.Context, req *milvuspb.QueryRequest) (*milvuspb.QueryResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, req)
	if err := f.failure("Query"); err != nil {
		return nil, err
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.QueryResults{Status: notFound(req.CollectionName)}, nil
	}
	if !c.loaded {
		return &milvuspb.QueryResults{Status: errStatus(commonpb.ErrorCode_UnexpectedError, "collection %s not loaded", req.CollectionName)}, nil
	}
	match, err := parseExpr(req.Expr)
	if err != nil {
		return &milvuspb.QueryResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "%v", err)}, nil
	}
	limit := math.MaxInt
	for _, kv := range req.QueryParams {
		if kv.Key == "limit" {
			limit, _ = strconv.Atoi(kv.Value)
		}
	}
	// Rows come in primary key order, as Milvus answers the query iterator.
	var hits []fakeRow
	for _, r := range c.sortedRows() {
		if len(hits) < limit && match(r) {
			hits = append(hits, r)
		}
	}
	if slices.Equal(req.OutputFields, []string{countField}) {
		if limit != math.MaxInt {
			return &milvuspb.QueryResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "count entities with pagination is not allowed")}, nil
		}
		count := entity.NewColumnInt64(countField, []int64{int64(len(hits))}).FieldData()
		if f.afterCount != nil {
			f.afterCount()
			f.afterCount = nil
		}
		return &milvuspb.QueryResults{Status: okStatus, FieldsData: []*schemapb.FieldData{count}, OutputFields: req.OutputFields}, nil
	}
	data, err := c.fieldsData(hits, req.OutputFields, true)
	if err != nil {
		return &milvuspb.QueryResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "%v", err)}, nil
	}
	return &milvuspb.QueryResults{Status: okStatus, FieldsData: data, OutputFields: req.OutputFields}, nil
}

func (f *fakeMilvus) Search(_ context.Context, req *milvuspb.SearchRequest) (*milvuspb.SearchResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, req)
	if err := f.failure("Search"); err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) (*milvuspb.SearchResults, error) {
		return &milvuspb.SearchResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, format, args...)}, nil
	}
	c := f.coll(req.CollectionName)
	if c == nil {
		return &milvuspb.SearchResults{Status: notFound(req.CollectionName)}, nil
	}
	if !c.loaded {
		return bad("collection %s not loaded", req.CollectionName)
	}
	params := kvMap(req.SearchParams)
	topK, err := strconv.Atoi(params["topk"])
	if err != nil {
		return bad("bad topk in %v", params)
	}
	field := params["anns_field"]
	var fieldType schemapb.DataType
	for _, fd := range c.schema.Fields {
		if fd.Name == field {
			fieldType = fd.DataType
		}
	}
	if !isVectorType(fieldType) {
		return bad("%q is not a vector field of %s", field, req.CollectionName)
	}
	if want := kvMap(c.indexes[field])["metric_type"]; params["metric_type"] != want {
		return bad("metric type %s does not match the index of %s (%s)", params["metric_type"], field, want)
	}
	match, err := parseExpr(req.Dsl)
	if err != nil {
		return bad("%v", err)
	}
	var pg commonpb.PlaceholderGroup
	if err := proto.Unmarshal(req.PlaceholderGroup, protoadapt.MessageV2Of(&pg)); err != nil || len(pg.Placeholders) != 1 || len(pg.Placeholders[0].Values) != 1 {
		return bad("bad placeholder group")
	}
	ph := pg.Placeholders[0]
	raw := ph.Values[0]
	var score func(fakeRow) (float32, bool)
	switch {
	case fieldType == schemapb.DataType_FloatVector && ph.Type == commonpb.PlaceholderType_FloatVector:
		query := make([]float32, len(raw)/4)
		for i := range query {
			query[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i*4:]))
		}
		score = func(r fakeRow) (float32, bool) { return cosine(query, r.vec), true }
	case fieldType == schemapb.DataType_SparseFloatVector && ph.Type == commonpb.PlaceholderType_SparseFloatVector:
		query := decodeSparse(raw)
		// Milvus answers only rows that share a dimension with the question.
		score = func(r fakeRow) (float32, bool) { s := dot(query, r.sparse); return s, s > 0 }
	default:
		return bad("placeholder of type %v for field %s", ph.Type, field)
	}
	type scored struct {
		r     fakeRow
		score float32
	}
	var all []scored
	for _, r := range c.sortedRows() {
		if !match(r) {
			continue
		}
		if s, ok := score(r); ok {
			all = append(all, scored{r, s})
		}
	}
	// Equal scores come in descending id order: Milvus promises no order
	// among them, and this one differs from the store's (document, chunk).
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].r.id > all[j].r.id
	})
	all = all[:min(topK, len(all))]
	hits := make([]fakeRow, len(all))
	scores := make([]float32, len(all))
	ids := make([]string, len(all))
	for i, s := range all {
		hits[i], scores[i], ids[i] = s.r, s.score, s.r.id
	}
	data, err := c.fieldsData(hits, req.OutputFields, false)
	if err != nil {
		return bad("%v", err)
	}
	return &milvuspb.SearchResults{Status: okStatus, Results: &schemapb.SearchResultData{
		NumQueries: 1,
		TopK:       int64(topK),
		FieldsData: data,
		Scores:     scores,
		Ids:        &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}},
		Topks:      []int64{int64(len(hits))},
	}}, nil
}

func kvMap(kvs []*commonpb.KeyValuePair) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// decodeSparse reads a serialized sparse row: little-endian pairs of a
// uint32 index and a float32 value.
func decodeSparse(b []byte) map[uint32]float32 {
	m := map[uint32]float32{}
	for i := 0; i+8 <= len(b); i += 8 {
		m[binary.LittleEndian.Uint32(b[i:])] = math.Float32frombits(binary.LittleEndian.Uint32(b[i+4:]))
	}
	return m
}

func dot(a, b map[uint32]float32) float32 {
	var s float32
	for d, v := range a {
		s += v * b[d]
	}
	return s
}

func (c *fakeColl) sortedRows() []fakeRow {
	out := make([]fakeRow, 0, len(c.rows))
	for _, r := range c.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b fakeRow) int { return strings.Compare(a.id, b.id) })
	return out
}

// row returns a row of vector_store.
func (f *fakeMilvus) row(id string) fakeRow {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.colls[DefaultCollection].rows[id]
}

// rowCount is the number of rows of vector_store.
func (f *fakeMilvus) rowCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.colls[DefaultCollection].rows)
}

// fieldsData answers the asked output fields; a query always answers the
// primary key too, as Milvus does.
func (c *fakeColl) fieldsData(rows []fakeRow, output []string, withPK bool) ([]*schemapb.FieldData, error) {
	want := slices.Clone(output)
	if withPK && !slices.Contains(want, FieldID) {
		want = append([]string{FieldID}, want...)
	}
	var out []*schemapb.FieldData
	for _, name := range want {
		if !slices.ContainsFunc(c.schema.Fields, func(fd *schemapb.FieldSchema) bool { return fd.Name == name }) {
			return nil, fmt.Errorf("field %s does not exist", name)
		}
		switch name {
		case FieldID:
			vals := make([]string, len(rows))
			for i, r := range rows {
				vals[i] = r.id
			}
			out = append(out, entity.NewColumnVarChar(name, vals).FieldData())
		case FieldContent:
			vals := make([]string, len(rows))
			for i, r := range rows {
				vals[i] = r.content
			}
			out = append(out, entity.NewColumnVarChar(name, vals).FieldData())
		case FieldMetadata:
			vals := make([][]byte, len(rows))
			for i, r := range rows {
				vals[i] = r.meta
			}
			out = append(out, entity.NewColumnJSONBytes(name, vals).FieldData())
		case FieldEmbedding:
			vals := make([][]float32, len(rows))
			for i, r := range rows {
				vals[i] = r.vec
			}
			out = append(out, entity.NewColumnFloatVector(name, docqa.Dimension, vals).FieldData())
		case FieldSparse:
			vals := make([]entity.SparseEmbedding, len(rows))
			for i, r := range rows {
				vals[i] = sparseOf(r.sparse)
			}
			out = append(out, entity.NewColumnSparseVectors(name, vals).FieldData())
		default:
			return nil, fmt.Errorf("the fake cannot answer field %s", name)
		}
	}
	return out, nil
}

func sparseOf(m map[uint32]float32) entity.SparseEmbedding {
	pos := make([]uint32, 0, len(m))
	vals := make([]float32, 0, len(m))
	for d, v := range m {
		pos = append(pos, d)
		vals = append(vals, v)
	}
	e, _ := entity.NewSliceSparseEmbedding(pos, vals)
	return e
}

func cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

const literal = `-?\d+|"(?:[^"\\]|\\.)*"`

var (
	termRE     = regexp.MustCompile(`^(doc_id|metadata\["(\w+)"\]) (==|>=|>|in|not in) (.+)$`)
	literalRE  = regexp.MustCompile(`^(?:` + literal + `)$`)
	listRE     = regexp.MustCompile(`^\[(?:(?:` + literal + `)(?:, (?:` + literal + `))*)?\]$`)
	itemRE     = regexp.MustCompile(literal)
	iteratorRE = regexp.MustCompile(`^\((.*)\) and (doc_id > "(?:[^"\\]|\\.)*")$`)
)

// parseExpr understands what the store and the SDK's query iterator send:
// "" (every row); terms `doc_id OP v` and `metadata["k"] OP v` where OP is
// `==`, `>=`, `>`, `in` or `not in` (with a list `[v, ...]`) and v a string
// or a number; terms joined by ` && ` and ` || ` (&& binds tighter) and
// grouped in parentheses; and the iterator's `(EXPR) and doc_id > "id"`.
// A key a row's metadata lacks compares false, as on a real server.
func parseExpr(expr string) (func(fakeRow) bool, error) {
	if expr == "" {
		return func(fakeRow) bool { return true }, nil
	}
	if m := iteratorRE.FindStringSubmatch(expr); m != nil {
		a, err := parseExpr(m[1])
		if err != nil {
			return nil, err
		}
		b, err := parseExpr(m[2])
		if err != nil {
			return nil, err
		}
		return func(r fakeRow) bool { return a(r) && b(r) }, nil
	}
	f, err := parseOr(strings.TrimSpace(expr))
	if err != nil {
		return nil, fmt.Errorf("cannot parse expression %q: %v", expr, err)
	}
	return f, nil
}

// splitTop splits s at every sep outside parentheses and string literals.
func splitTop(s, sep string) []string {
	var parts []string
	depth, start, inString := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			parts = append(parts, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(parts, s[start:])
}

func parseOr(s string) (func(fakeRow) bool, error) {
	var alts []func(fakeRow) bool
	for _, part := range splitTop(s, " || ") {
		f, err := parseAnd(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		alts = append(alts, f)
	}
	return func(r fakeRow) bool {
		for _, f := range alts {
			if f(r) {
				return true
			}
		}
		return false
	}, nil
}

func parseAnd(s string) (func(fakeRow) bool, error) {
	var terms []func(fakeRow) bool
	for _, part := range splitTop(s, " && ") {
		part = strings.TrimSpace(part)
		var t func(fakeRow) bool
		var err error
		if strings.HasPrefix(part, "(") && strings.HasSuffix(part, ")") && len(splitTop(part[1:len(part)-1], ")")) == 1 {
			t, err = parseOr(part[1 : len(part)-1])
		} else {
			t, err = parseTerm(part)
		}
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return func(r fakeRow) bool {
		for _, t := range terms {
			if !t(r) {
				return false
			}
		}
		return true
	}, nil
}

func parseTerm(s string) (func(fakeRow) bool, error) {
	m := termRE.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("term %q", s)
	}
	field, key, op, rhs := m[1], m[2], m[3], m[4]
	get := func(r fakeRow) any { return r.id }
	if field != FieldID {
		get = func(r fakeRow) any {
			var obj map[string]any
			if json.Unmarshal(r.meta, &obj) != nil {
				return nil
			}
			return obj[key]
		}
	}
	if op == "in" || op == "not in" {
		if !listRE.MatchString(rhs) {
			return nil, fmt.Errorf("list %q", rhs)
		}
		var vals []any
		for _, item := range itemRE.FindAllString(rhs, -1) {
			v, err := parseLiteral(item)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
		if op == "not in" {
			return func(r fakeRow) bool { v := get(r); return v != nil && !slices.Contains(vals, v) }, nil
		}
		return func(r fakeRow) bool { return slices.Contains(vals, get(r)) }, nil
	}
	if !literalRE.MatchString(rhs) {
		return nil, fmt.Errorf("literal %q", rhs)
	}
	v, err := parseLiteral(rhs)
	if err != nil {
		return nil, err
	}
	if op == "==" {
		return func(r fakeRow) bool { return get(r) == v }, nil
	}
	orEqual := op == ">="
	return func(r fakeRow) bool {
		switch x := get(r).(type) {
		case string:
			y, ok := v.(string)
			return ok && (x > y || orEqual && x == y)
		case float64:
			y, ok := v.(float64)
			return ok && (x > y || orEqual && x == y)
		}
		return false
	}, nil
}

func parseLiteral(s string) (any, error) {
	if strings.HasPrefix(s, `"`) {
		v, err := strconv.Unquote(s)
		if err != nil {
			return nil, fmt.Errorf("string literal %s: %v", s, err)
		}
		return v, nil
	}
	return strconv.ParseFloat(s, 64)
}

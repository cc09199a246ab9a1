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
)

// fakeMilvus is an in-process Milvus: it answers the RPCs the store uses
// over real gRPC, keeps rows in memory, searches them by exact cosine, and
// records every request so tests can check what the store sent. Expressions
// are evaluated for the one form the store writes (`metadata["k"] == v`
// joined by `&&`); anything else is answered with an error, as a real server
// answers an expression it cannot parse.
type fakeMilvus struct {
	milvuspb.UnimplementedMilvusServiceServer

	mu       sync.Mutex
	schema   *schemapb.CollectionSchema // nil: no collection
	rows     map[string]fakeRow
	indexed  bool
	loaded   bool
	healthy  bool
	failures map[string]codes.Code // method → error to answer
	// upsertsOK > 0: the Upsert requests after that many fail.
	upsertsOK int

	connects      []*milvuspb.ConnectRequest
	creates       []*milvuspb.CreateCollectionRequest
	createIndexes []*milvuspb.CreateIndexRequest
	loads         []*milvuspb.LoadCollectionRequest
	upserts       []*milvuspb.UpsertRequest
	searches      []*milvuspb.SearchRequest
	queries       []*milvuspb.QueryRequest
	deletes       []*milvuspb.DeleteRequest
}

type fakeRow struct {
	id, content string
	meta        []byte
	vec         []float32
}

func newFake() *fakeMilvus {
	return &fakeMilvus{rows: map[string]fakeRow{}, healthy: true, failures: map[string]codes.Code{}}
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
			grpc.WithBlock(),
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

// withCollection gives the fake an existing collection with schema sch.
func (f *fakeMilvus) withCollection(sch *entity.Schema) *fakeMilvus {
	f.schema = sch.ProtoMessage()
	f.indexed = true
	return f
}

func (f *fakeMilvus) fail(method string, code codes.Code) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[method] = code
}

func (f *fakeMilvus) failure(method string) error {
	if code, ok := f.failures[method]; ok {
		return status.Errorf(code, "injected failure of %s", method)
	}
	return nil
}

var okStatus = &commonpb.Status{ErrorCode: commonpb.ErrorCode_Success}

func errStatus(code commonpb.ErrorCode, format string, args ...any) *commonpb.Status {
	return &commonpb.Status{ErrorCode: code, Reason: fmt.Sprintf(format, args...), Code: 1}
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
	return &milvuspb.BoolResponse{Status: okStatus, Value: f.schema != nil && f.schema.Name == req.CollectionName}, nil
}

func (f *fakeMilvus) CreateCollection(_ context.Context, req *milvuspb.CreateCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, req)
	if f.schema != nil {
		return errStatus(commonpb.ErrorCode_IllegalArgument, "collection %s already exists", req.CollectionName), nil
	}
	var sch schemapb.CollectionSchema
	if err := proto.Unmarshal(req.Schema, protoadapt.MessageV2Of(&sch)); err != nil {
		return errStatus(commonpb.ErrorCode_IllegalArgument, "schema: %v", err), nil
	}
	f.schema = &sch
	return okStatus, nil
}

func (f *fakeMilvus) DescribeCollection(_ context.Context, req *milvuspb.DescribeCollectionRequest) (*milvuspb.DescribeCollectionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.schema == nil || f.schema.Name != req.CollectionName {
		return &milvuspb.DescribeCollectionResponse{Status: errStatus(commonpb.ErrorCode_CollectionNotExists, "collection %s not found", req.CollectionName)}, nil
	}
	return &milvuspb.DescribeCollectionResponse{
		Status:           okStatus,
		Schema:           f.schema,
		CollectionID:     1,
		CollectionName:   f.schema.Name,
		ConsistencyLevel: commonpb.ConsistencyLevel_Bounded,
	}, nil
}

func (f *fakeMilvus) CreateIndex(_ context.Context, req *milvuspb.CreateIndexRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.createIndexes = append(f.createIndexes, req)
	if err := f.failure("CreateIndex"); err != nil {
		return nil, err
	}
	f.indexed = true
	return okStatus, nil
}

func (f *fakeMilvus) DescribeIndex(_ context.Context, req *milvuspb.DescribeIndexRequest) (*milvuspb.DescribeIndexResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.createIndexes) == 0 {
		return &milvuspb.DescribeIndexResponse{Status: errStatus(commonpb.ErrorCode_IndexNotExist, "index not found")}, nil
	}
	last := f.createIndexes[len(f.createIndexes)-1]
	return &milvuspb.DescribeIndexResponse{Status: okStatus, IndexDescriptions: []*milvuspb.IndexDescription{{
		IndexName: last.IndexName,
		FieldName: last.FieldName,
		Params:    last.ExtraParams,
		State:     commonpb.IndexState_Finished,
	}}}, nil
}

func (f *fakeMilvus) LoadCollection(_ context.Context, req *milvuspb.LoadCollectionRequest) (*commonpb.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads = append(f.loads, req)
	if err := f.failure("LoadCollection"); err != nil {
		return nil, err
	}
	if !f.indexed {
		return errStatus(commonpb.ErrorCode_IndexNotExist, "there is no vector index on field embedding"), nil
	}
	f.loaded = true
	return okStatus, nil
}

func (f *fakeMilvus) GetLoadingProgress(context.Context, *milvuspb.GetLoadingProgressRequest) (*milvuspb.GetLoadingProgressResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	progress := int64(0)
	if f.loaded {
		progress = 100
	}
	return &milvuspb.GetLoadingProgressResponse{Status: okStatus, Progress: progress}, nil
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
	cols := map[string]entity.Column{}
	for _, fd := range req.FieldsData {
		col, err := entity.FieldDataColumn(fd, 0, -1)
		if err != nil {
			return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "%v", err)}, nil
		}
		cols[fd.FieldName] = col
	}
	ids, ok1 := cols[FieldID].(*entity.ColumnVarChar)
	content, ok2 := cols[FieldContent].(*entity.ColumnVarChar)
	meta, ok3 := cols[FieldMetadata].(*entity.ColumnJSONBytes)
	vecs, ok4 := cols[FieldEmbedding].(*entity.ColumnFloatVector)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "missing or mistyped columns")}, nil
	}
	for i, id := range ids.Data() {
		if len(content.Data()[i]) > ContentMaxLength {
			return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "content of %s exceeds max length", id)}, nil
		}
	}
	for i, id := range ids.Data() {
		f.rows[id] = fakeRow{id: id, content: content.Data()[i], meta: meta.Data()[i], vec: vecs.Data()[i]}
	}
	return &milvuspb.MutationResult{
		Status:    okStatus,
		IDs:       &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids.Data()}}},
		UpsertCnt: int64(ids.Len()),
	}, nil
}

func (f *fakeMilvus) Delete(_ context.Context, req *milvuspb.DeleteRequest) (*milvuspb.MutationResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deletes = append(f.deletes, req)
	if err := f.failure("Delete"); err != nil {
		return nil, err
	}
	match, err := parseExpr(req.Expr)
	if err != nil {
		return &milvuspb.MutationResult{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "%v", err)}, nil
	}
	n := int64(0)
	for id, r := range f.rows {
		if match(r.meta) {
			delete(f.rows, id)
			n++
		}
	}
	return &milvuspb.MutationResult{Status: okStatus, DeleteCnt: n}, nil
}

func (f *fakeMilvus) Query(_ context.Context, req *milvuspb.QueryRequest) (*milvuspb.QueryResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, req)
	if err := f.failure("Query"); err != nil {
		return nil, err
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
	var hits []fakeRow
	for _, r := range f.sortedRows() {
		if len(hits) < limit && match(r.meta) {
			hits = append(hits, r)
		}
	}
	return &milvuspb.QueryResults{Status: okStatus, FieldsData: fieldsData(hits, req.OutputFields, true), OutputFields: req.OutputFields}, nil
}

func (f *fakeMilvus) Search(_ context.Context, req *milvuspb.SearchRequest) (*milvuspb.SearchResults, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, req)
	if err := f.failure("Search"); err != nil {
		return nil, err
	}
	params := map[string]string{}
	for _, kv := range req.SearchParams {
		params[kv.Key] = kv.Value
	}
	topK, err := strconv.Atoi(params["topk"])
	if err != nil || params["metric_type"] != string(entity.COSINE) || params["anns_field"] != FieldEmbedding {
		return &milvuspb.SearchResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "bad search params %v", params)}, nil
	}
	var pg commonpb.PlaceholderGroup
	if err := proto.Unmarshal(req.PlaceholderGroup, protoadapt.MessageV2Of(&pg)); err != nil || len(pg.Placeholders) != 1 || len(pg.Placeholders[0].Values) != 1 {
		return &milvuspb.SearchResults{Status: errStatus(commonpb.ErrorCode_IllegalArgument, "bad placeholder group")}, nil
	}
	raw := pg.Placeholders[0].Values[0]
	query := make([]float32, len(raw)/4)
	for i := range query {
		query[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i*4:]))
	}
	type scored struct {
		r     fakeRow
		score float32
	}
	var all []scored
	for _, r := range f.sortedRows() {
		all = append(all, scored{r, cosine(query, r.vec)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	all = all[:min(topK, len(all))]
	hits := make([]fakeRow, len(all))
	scores := make([]float32, len(all))
	ids := make([]string, len(all))
	for i, s := range all {
		hits[i], scores[i], ids[i] = s.r, s.score, s.r.id
	}
	return &milvuspb.SearchResults{Status: okStatus, Results: &schemapb.SearchResultData{
		NumQueries: 1,
		TopK:       int64(topK),
		FieldsData: fieldsData(hits, req.OutputFields, false),
		Scores:     scores,
		Ids:        &schemapb.IDs{IdField: &schemapb.IDs_StrId{StrId: &schemapb.StringArray{Data: ids}}},
		Topks:      []int64{int64(len(hits))},
	}}, nil
}

func (f *fakeMilvus) sortedRows() []fakeRow {
	out := make([]fakeRow, 0, len(f.rows))
	for _, r := range f.rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b fakeRow) int { return strings.Compare(a.id, b.id) })
	return out
}

func (f *fakeMilvus) row(id string) fakeRow {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rows[id]
}

// rowCount is the number of stored rows.
func (f *fakeMilvus) rowCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rows)
}

// fieldsData answers the asked output fields; a query always answers the
// primary key too, as Milvus does.
func fieldsData(rows []fakeRow, output []string, withPK bool) []*schemapb.FieldData {
	want := map[string]bool{}
	for _, o := range output {
		want[o] = true
	}
	if withPK {
		want[FieldID] = true
	}
	var out []*schemapb.FieldData
	col := func(name string, get func(fakeRow) string) {
		vals := make([]string, len(rows))
		for i, r := range rows {
			vals[i] = get(r)
		}
		out = append(out, entity.NewColumnVarChar(name, vals).FieldData())
	}
	if want[FieldID] {
		col(FieldID, func(r fakeRow) string { return r.id })
	}
	if want[FieldContent] {
		col(FieldContent, func(r fakeRow) string { return r.content })
	}
	if want[FieldMetadata] {
		vals := make([][]byte, len(rows))
		for i, r := range rows {
			vals[i] = r.meta
		}
		out = append(out, entity.NewColumnJSONBytes(FieldMetadata, vals).FieldData())
	}
	return out
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

var termRE = regexp.MustCompile(`^metadata\["(\w+)"\] == (-?\d+|"(?:[^"\\]|\\.)*")$`)

// parseExpr understands `metadata["k"] == "v"` and `metadata["k"] == 3`
// terms joined by ` && `.
func parseExpr(expr string) (func(meta []byte) bool, error) {
	type term struct {
		key string
		val any
	}
	var terms []term
	for _, part := range strings.Split(expr, " && ") {
		m := termRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("cannot parse expression %q", expr)
		}
		if strings.HasPrefix(m[2], `"`) {
			s, err := strconv.Unquote(m[2])
			if err != nil {
				return nil, fmt.Errorf("string literal %s: %v", m[2], err)
			}
			terms = append(terms, term{m[1], s})
		} else {
			n, _ := strconv.ParseFloat(m[2], 64)
			terms = append(terms, term{m[1], n})
		}
	}
	return func(meta []byte) bool {
		var obj map[string]any
		if json.Unmarshal(meta, &obj) != nil {
			return false
		}
		for _, t := range terms {
			if obj[t.key] != t.val {
				return false
			}
		}
		return true
	}, nil
}

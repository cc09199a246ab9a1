// Package openaifake is an in-process OpenAI-compatible HTTP server for tests.
// It stands in for the paid embedding and chat providers and for a rerank
// server: tests talk to it over real HTTP (net/http/httptest), through the
// same client library the service uses in production.
//
// It serves three endpoints under [Server.URL] (which ends in "/v1", the form
// OpenAI client libraries take as their base URL):
//
//   - POST /v1/embeddings: one deterministic vector per input string, derived
//     from the text (hash-seeded, L2-normalised), of the dimension given with
//     [WithDimension] (default 1024). The same text always gets the same
//     vector. Inputs may be a string or an array of strings; encoding_format
//     "float" and "base64" are both answered.
//   - POST /v1/chat/completions with "stream": true: a server-sent event stream
//     of chat.completion.chunk frames carrying the deltas of the current
//     [Script] (each after its optional delay), a final frame with the
//     script's finish reason, a frame with the tokens used ([ChatUsage]) when
//     the request asks for it (stream_options.include_usage), then
//     "data: [DONE]". Without "stream": true the answer is one
//     chat.completion whose message is the script's deltas joined (a
//     structured output's JSON, say), with the script's finish reason and
//     the usage; the request's response_format is recorded.
//   - POST /v1/rerank (the Jina / Cohere v1 shape self-hosted rerank servers
//     share): a deterministic relevance score per document, [Score] (the
//     fraction of the query's words found in the document), with results
//     sorted by score, highest first, as real servers answer; top_n cuts the
//     list and return_documents adds each document's text.
//
// Failures are queued with [Server.FailEmbeddings], [Server.FailChat] and
// [Server.FailRerank]; each queued [Failure] is used by exactly one later
// request of that endpoint, in order, and requests after the queue is empty
// succeed. A Failure can answer an HTTP status (with an OpenAI error body and
// an optional Retry-After header), hang before sending anything, answer a
// body that is not JSON (embeddings, rerank), or, after some deltas (chat),
// hang, send a malformed frame, send an in-stream error frame, or end the
// stream without a finish reason. A hanging request is held until the client
// gives up (its request context ends) or the server closes.
//
// Every request is recorded: [Server.EmbeddingRequests] returns the inputs of
// each embeddings call (so tests can check batch sizes), [Server.MaxInFlight]
// the largest number of embeddings calls served at once (slow them down with
// [WithEmbeddingDelay] to observe a concurrency bound), [Server.ChatRequests]
// the model, messages and temperature of each chat call together with whether
// the client cancelled it before the stream ended ([Server.Cancelled] is a
// channel closed the first time that happens) and when the first delta was
// flushed, and [Server.RerankRequests] the model, query, documents and top_n
// of each rerank call.
//
// Typical use:
//
//	fake := openaifake.New(t, openaifake.WithScript(openaifake.Script{
//		Deltas: openaifake.Text("Hello", ", world"),
//	}))
//	chat, err := provider.NewChat(provider.ChatConfig{BaseURL: fake.URL, APIKey: openaifake.APIKey, Model: "m"})
//
// The server is closed by tb.Cleanup.
package openaifake

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
)

// APIKey is the bearer token the server accepts unless [WithAPIKey] says
// otherwise. A request with another key is answered 401.
const APIKey = "sk-fake-test-key"

// Delta is one piece of a scripted chat answer.
type Delta struct {
	Content string
	// Delay is waited before this delta is sent.
	Delay time.Duration
}

// Text turns strings into deltas without delay.
func Text(pieces ...string) []Delta {
	ds := make([]Delta, len(pieces))
	for i, p := range pieces {
		ds[i] = Delta{Content: p}
	}
	return ds
}

// Script is what the chat endpoint answers when no failure is queued.
type Script struct {
	Deltas []Delta
	// FinishReason is sent in the last frame; "" sends "stop".
	FinishReason string
}

// Failure is an injected fault for one request. Exactly one of its behaviours
// applies, in this order: Status, Malformed, StreamError, Cut, Hang.
type Failure struct {
	// Status answers this HTTP status with an OpenAI error body.
	Status int
	// RetryAfter is sent as the Retry-After header with Status (e.g. "1").
	RetryAfter string
	// Message is the error message of the body; "" uses the status text.
	Message string
	// Malformed sends AfterDeltas deltas of the script, then a frame that is
	// not JSON, then ends the stream; for embeddings and rerank, a body that
	// is not JSON.
	Malformed bool
	// StreamError sends AfterDeltas deltas, then a frame {"error": {...}}
	// with this message (as providers do when they fail mid-answer), then
	// ends the stream (chat only).
	StreamError string
	// Cut sends AfterDeltas deltas, then ends the response cleanly without a
	// finish reason or [DONE] (chat only).
	Cut bool
	// Hang holds the request until the client goes away. With AfterDeltas 0
	// nothing at all is sent (not even headers); with AfterDeltas n > 0 the
	// headers and the first n deltas of the script are sent first (chat).
	Hang        bool
	AfterDeltas int
}

// EmbeddingRequest is one recorded call of /v1/embeddings.
type EmbeddingRequest struct {
	Model          string
	Input          []string
	EncodingFormat string
	Authorization  string
	Traceparent    string // the W3C trace context header, "" when none was sent
}

// RerankRequest is one recorded call of /v1/rerank.
type RerankRequest struct {
	Model           string
	Query           string
	Documents       []string
	TopN            *int  // nil when the client sent none
	ReturnDocuments *bool // nil when the client sent none
	Authorization   string
}

// Message is a chat message as received.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is one recorded call of /v1/chat/completions.
type ChatRequest struct {
	Model       string
	Messages    []Message
	Temperature *float64 // nil when the client sent none
	Stream      bool
	// ResponseFormat is the request's response_format as sent (nil when
	// none was): structured outputs send {"type": "json_schema", ...}.
	ResponseFormat json.RawMessage
	Authorization  string
	Traceparent    string // the W3C trace context header, "" when none was sent
	// FirstDeltaAt is when the first content delta was flushed to the
	// client (zero if none was).
	FirstDeltaAt time.Time
	// Cancelled is true when the client's request ended before the server
	// finished answering (the server saw its request context end).
	Cancelled bool
	// CancelledAt is when the server saw that.
	CancelledAt time.Time
	// Completed is true when the whole answer, [DONE] included, was written.
	Completed bool
}

// Server is the fake provider. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL for client libraries, e.g. "http://127.0.0.1:1234/v1".
	URL string

	srv       *httptest.Server
	quit      chan struct{}
	cancelled chan struct{}

	mu             sync.Mutex
	apiKey         string
	dim            int
	embedDelay     time.Duration
	script         Script
	embedFailures  []Failure
	chatFailures   []Failure
	rerankFailures []Failure
	embedReqs      []EmbeddingRequest
	chatReqs       []*ChatRequest
	rerankReqs     []RerankRequest
	inFlight       int
	maxInFlight    int
	cancelOnce     sync.Once
}

// Option configures a Server.
type Option func(*Server)

// WithDimension sets the length of the vectors the embeddings endpoint answers.
func WithDimension(n int) Option { return func(s *Server) { s.dim = n } }

// WithEmbeddingDelay holds every embeddings request for d before answering,
// so that concurrent calls overlap and [Server.MaxInFlight] shows the bound.
func WithEmbeddingDelay(d time.Duration) Option { return func(s *Server) { s.embedDelay = d } }

// WithScript sets the chat answer.
func WithScript(sc Script) Option { return func(s *Server) { s.script = sc } }

// WithAPIKey sets the accepted bearer token; "" accepts any request.
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// New starts a server on 127.0.0.1 and registers its shutdown with tb.Cleanup.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{
		apiKey:    APIKey,
		dim:       1024,
		script:    Script{Deltas: Text("Hello", " from", " the fake."), FinishReason: "stop"},
		quit:      make(chan struct{}),
		cancelled: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/rerank", s.rerank)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL + "/v1"
	tb.Cleanup(s.Close)
	return s
}

// Close releases hanging requests and shuts the server down. It is safe to
// call more than once.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.quit:
		s.mu.Unlock()
		return
	default:
		close(s.quit)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetScript replaces the chat answer for later requests.
func (s *Server) SetScript(sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = sc
}

// SetDimension changes the vector length for later embeddings requests.
func (s *Server) SetDimension(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dim = n
}

// FailEmbeddings queues failures for the next embeddings requests, one each.
func (s *Server) FailEmbeddings(fs ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFailures = append(s.embedFailures, fs...)
}

// FailChat queues failures for the next chat requests, one each.
func (s *Server) FailChat(fs ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatFailures = append(s.chatFailures, fs...)
}

// FailRerank queues failures for the next rerank requests, one each.
func (s *Server) FailRerank(fs ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rerankFailures = append(s.rerankFailures, fs...)
}

// EmbeddingRequests returns a copy of the recorded embeddings calls, in the
// order they arrived (failed ones included).
func (s *Server) EmbeddingRequests() []EmbeddingRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]EmbeddingRequest, len(s.embedReqs))
	copy(out, s.embedReqs)
	return out
}

// MaxInFlight is the largest number of embeddings requests served at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// ChatRequests returns a copy of the recorded chat calls, in arrival order.
func (s *Server) ChatRequests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ChatRequest, len(s.chatReqs))
	for i, r := range s.chatReqs {
		out[i] = *r
	}
	return out
}

// LastChatRequest returns the most recent chat call, if any.
func (s *Server) LastChatRequest() (ChatRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.chatReqs) == 0 {
		return ChatRequest{}, false
	}
	return *s.chatReqs[len(s.chatReqs)-1], true
}

// RerankRequests returns a copy of the recorded rerank calls, in the order
// they arrived (failed ones included).
func (s *Server) RerankRequests() []RerankRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RerankRequest, len(s.rerankReqs))
	copy(out, s.rerankReqs)
	return out
}

// Cancelled is closed the first time a chat request's context ends before
// its answer was complete, as seen by the server.
func (s *Server) Cancelled() <-chan struct{} { return s.cancelled }

// Vector is the embedding the server answers for text at dimension dim. Tests
// use it to check that vectors come back in input order.
func Vector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v := make([]float32, dim)
	var sum float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		sum += x * x
	}
	norm := float32(math.Sqrt(sum))
	if norm > 0 {
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}

// Score is the relevance the rerank endpoint answers for document against
// query: the fraction of the query's distinct words (lower-cased runs of
// letters and digits) that are words of the document, from 0 to 1. Tests
// use it to predict the scores and their order.
func Score(query, document string) float64 {
	qs := words(query)
	if len(qs) == 0 {
		return 0
	}
	ds := words(document)
	found := 0
	for w := range qs {
		if ds[w] {
			found++
		}
	}
	return float64(found) / float64(len(qs))
}

func words(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		set[w] = true
	}
	return set
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	if key == "" || r.Header.Get("Authorization") == "Bearer "+key {
		return true
	}
	writeError(w, http.StatusUnauthorized, "", "Incorrect API key provided.", "invalid_api_key")
	return false
}

// next takes the next queued failure, if any.
func next(q *[]Failure) (Failure, bool) {
	if len(*q) == 0 {
		return Failure{}, false
	}
	f := (*q)[0]
	*q = (*q)[1:]
	return f, true
}

func writeError(w http.ResponseWriter, status int, retryAfter, message, code string) {
	if message == "" {
		message = http.StatusText(status)
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": message, "type": "fake_error", "param": nil, "code": code,
	}})
}

func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.quit:
	}
}

// readJSON reads the whole body before decoding it: net/http watches the
// connection for a client that goes away (ending r.Context()) only once the
// body has been read to its end.
func readJSON(r *http.Request, dst any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}

// midStream applies the mid-stream behaviour of f, if it has one, and
// reports whether the answer ends there.
func (s *Server) midStream(w http.ResponseWriter, r *http.Request, f Failure) bool {
	flusher, _ := w.(http.Flusher)
	switch {
	case f.Malformed:
		_, _ = fmt.Fprint(w, "data: {\"choices\": [ this is not json\n\n")
	case f.StreamError != "":
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": f.StreamError, "type": "server_error", "code": nil}})
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	case f.Cut:
	case f.Hang:
		s.hang(r)
		return true
	default:
		return false
	}
	flusher.Flush()
	return true
}

// markCancelled records that the client of rec went away before its answer
// was complete.
func (s *Server) markCancelled(rec *ChatRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec.Completed || rec.Cancelled {
		return
	}
	rec.Cancelled, rec.CancelledAt = true, time.Now()
	s.cancelOnce.Do(func() { close(s.cancelled) })
}

type embeddingBody struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	delay, dim := s.embedDelay, s.dim
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	if !s.authorized(w, r) {
		return
	}
	var body embeddingBody
	if err := readJSON(r, &body); err != nil {
		writeError(w, http.StatusBadRequest, "", "malformed JSON body: "+err.Error(), "invalid_request")
		return
	}
	var inputs []string
	if err := json.Unmarshal(body.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(body.Input, &one); err != nil {
			writeError(w, http.StatusBadRequest, "", "input: must be a string or an array of strings", "invalid_request")
			return
		}
		inputs = []string{one}
	}

	s.mu.Lock()
	s.embedReqs = append(s.embedReqs, EmbeddingRequest{
		Model: body.Model, Input: inputs, EncodingFormat: body.EncodingFormat,
		Authorization: r.Header.Get("Authorization"), Traceparent: r.Header.Get("Traceparent"),
	})
	f, failing := next(&s.embedFailures)
	s.mu.Unlock()

	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if failing {
		switch {
		case f.Status != 0:
			writeError(w, f.Status, f.RetryAfter, f.Message, "fake_failure")
			return
		case f.Malformed:
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprint(w, `{"object": "list", "data": [ this is not json`)
			return
		case f.Hang:
			s.hang(r)
			return
		}
	}
	if body.Model == "" {
		writeError(w, http.StatusBadRequest, "", "model: required", "invalid_request")
		return
	}
	if len(inputs) == 0 {
		writeError(w, http.StatusBadRequest, "", "input: must not be empty", "invalid_request")
		return
	}

	data := make([]map[string]any, len(inputs))
	for i, text := range inputs {
		vec := Vector(text, dim)
		var emb any = vec
		if body.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(vec))
			for j, x := range vec {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
			}
			emb = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": body.Model,
		"usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
	})
}

type chatBody struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature *float64  `json:"temperature"`
	Stream      bool      `json:"stream"`
	// ResponseFormat is kept as sent.
	ResponseFormat json.RawMessage `json:"response_format"`
	// StreamOptions.IncludeUsage asks for a last frame with the tokens
	// used, as OpenAI sends it.
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var body chatBody
	if err := readJSON(r, &body); err != nil {
		writeError(w, http.StatusBadRequest, "", "malformed JSON body: "+err.Error(), "invalid_request")
		return
	}
	rec := &ChatRequest{
		Model: body.Model, Messages: body.Messages, Temperature: body.Temperature,
		Stream: body.Stream, ResponseFormat: body.ResponseFormat,
		Authorization: r.Header.Get("Authorization"), Traceparent: r.Header.Get("Traceparent"),
	}
	s.mu.Lock()
	s.chatReqs = append(s.chatReqs, rec)
	f, failing := next(&s.chatFailures)
	script := s.script
	s.mu.Unlock()

	// Record a client that goes away before the answer is complete. The
	// handler only stops early (hang, delay, failed write) because of that,
	// or because the server closes.
	defer func() {
		if r.Context().Err() != nil {
			s.markCancelled(rec)
		}
	}()

	if failing && f.Status != 0 {
		writeError(w, f.Status, f.RetryAfter, f.Message, "fake_failure")
		return
	}
	if failing && f.Hang && f.AfterDeltas == 0 {
		s.hang(r)
		return
	}
	if body.Model == "" || len(body.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "", "model and messages: required", "invalid_request")
		return
	}
	if !body.Stream {
		s.completion(w, rec, body, script, failing && f.Malformed)
		return
	}

	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	created := time.Now().Unix()
	frame := func(delta map[string]any, finish any) error {
		b, err := json.Marshal(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			s.markCancelled(rec)
			return err
		}
		flusher.Flush()
		return nil
	}

	for i, d := range script.Deltas {
		if failing && f.AfterDeltas == i && s.midStream(w, r, f) {
			return
		}
		if d.Delay > 0 {
			select {
			case <-time.After(d.Delay):
			case <-r.Context().Done():
				return
			case <-s.quit:
				return
			}
		}
		delta := map[string]any{"content": d.Content}
		if i == 0 {
			delta["role"] = "assistant"
		}
		// Stamp before the write so that the measured latency includes the
		// whole trip through the server's writer, the network and the client.
		now := time.Now()
		s.mu.Lock()
		if rec.FirstDeltaAt.IsZero() {
			rec.FirstDeltaAt = now
		}
		s.mu.Unlock()
		if err := frame(delta, nil); err != nil {
			return
		}
	}
	if failing && f.AfterDeltas >= len(script.Deltas) && s.midStream(w, r, f) {
		return
	}
	finish := script.FinishReason
	if finish == "" {
		finish = "stop"
	}
	if err := frame(map[string]any{}, finish); err != nil {
		return
	}
	if body.StreamOptions.IncludeUsage {
		prompt, completion := ChatUsage(body.Messages, script)
		b, err := json.Marshal(map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": created, "model": body.Model,
			"choices": []any{},
			"usage":   map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
		})
		if err != nil {
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			s.markCancelled(rec)
			return
		}
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil {
		s.markCancelled(rec)
		return
	}
	flusher.Flush()
	s.mu.Lock()
	rec.Completed = true
	s.mu.Unlock()
}

// completion answers a request without stream: one chat.completion whose
// message is the script's deltas joined; malformed sends a body that is
// not JSON instead.
func (s *Server) completion(w http.ResponseWriter, rec *ChatRequest, body chatBody, script Script, malformed bool) {
	w.Header().Set("Content-Type", "application/json")
	if malformed {
		_, _ = fmt.Fprint(w, `{"id": "chatcmpl-fake", "choices": [ this is not json`)
		return
	}
	var content strings.Builder
	for _, d := range script.Deltas {
		content.WriteString(d.Content)
	}
	finish := cmp.Or(script.FinishReason, "stop")
	prompt, completion := ChatUsage(body.Messages, script)
	err := json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": body.Model,
		"choices": []map[string]any{{
			"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": content.String(), "refusal": nil},
		}},
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
	if err == nil {
		s.mu.Lock()
		rec.Completed = true
		s.mu.Unlock()
	}
}

type rerankBody struct {
	Model           string   `json:"model"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            *int     `json:"top_n"`
	ReturnDocuments *bool    `json:"return_documents"`
}

func (s *Server) rerank(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	var body rerankBody
	if err := readJSON(r, &body); err != nil {
		writeError(w, http.StatusBadRequest, "", "malformed JSON body: "+err.Error(), "invalid_request")
		return
	}

	s.mu.Lock()
	s.rerankReqs = append(s.rerankReqs, RerankRequest{
		Model: body.Model, Query: body.Query, Documents: body.Documents,
		TopN: body.TopN, ReturnDocuments: body.ReturnDocuments,
		Authorization: r.Header.Get("Authorization"),
	})
	f, failing := next(&s.rerankFailures)
	s.mu.Unlock()

	if failing {
		switch {
		case f.Status != 0:
			writeError(w, f.Status, f.RetryAfter, f.Message, "fake_failure")
			return
		case f.Malformed:
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprint(w, `{"results": [ this is not json`)
			return
		case f.Hang:
			s.hang(r)
			return
		}
	}
	if body.Model == "" || body.Query == "" {
		writeError(w, http.StatusBadRequest, "", "model and query: required", "invalid_request")
		return
	}
	if len(body.Documents) == 0 {
		writeError(w, http.StatusBadRequest, "", "documents: must not be empty", "invalid_request")
		return
	}

	type result struct {
		Index          int               `json:"index"`
		RelevanceScore float64           `json:"relevance_score"`
		Document       map[string]string `json:"document,omitempty"`
	}
	results := make([]result, len(body.Documents))
	for i, doc := range body.Documents {
		results[i] = result{Index: i, RelevanceScore: Score(body.Query, doc)}
		if body.ReturnDocuments != nil && *body.ReturnDocuments {
			results[i].Document = map[string]string{"text": doc}
		}
	}
	slices.SortStableFunc(results, func(a, b result) int { return cmp.Compare(b.RelevanceScore, a.RelevanceScore) })
	if body.TopN != nil && *body.TopN > 0 && *body.TopN < len(results) {
		results = results[:*body.TopN]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "rerank-fake", "model": body.Model, "results": results,
		"usage": map[string]int{"total_tokens": len(body.Documents)},
	})
}

// ChatUsage is the usage the fake reports for a chat answer when the client
// asks for it (stream_options.include_usage): one prompt token per word of
// the messages, one completion token per delta of the script.
func ChatUsage(messages []Message, script Script) (prompt, completion int) {
	for _, m := range messages {
		prompt += len(strings.Fields(m.Content))
	}
	return prompt, len(script.Deltas)
}

// Package docqa holds the nouns of the document question-answering service:
// documents, chunks and retrieved sources, and the small interfaces that the
// HTTP layer consumes (Embedder, ChatModel, VectorStore). Implementations live
// in their own packages, one per technology (milvus, embedded, provider).
package docqa

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/auth"
)

// Contract constants (proto-docs/docqa-service.openapi.yaml, proto-docs/contract.md).
const (
	Dimension      = 1024 // embedding dimension
	ChunkTokens    = 400  // chunk size in cl100k tokens
	MinChunkChars  = 200  // a cut moves back to a sentence end only past this many characters
	MaxChunks      = 10000
	MinChunkLength = 5 // pieces of this many characters or fewer are dropped
)

// Errors returned by the interfaces below. Implementations wrap them with
// fmt.Errorf("...: %w", ErrX) so callers use errors.Is.
var (
	// ErrNotFound: the addressed document does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnavailable: a provider or the vector store cannot be reached or
	// failed on its side (5xx, timeout, connection refused). Mapped to 503.
	ErrUnavailable = errors.New("unavailable")
	// ErrEmbedderMismatch: the store holds vectors written by another
	// embedder; mixing them would make search meaningless.
	ErrEmbedderMismatch = errors.New("vector store was written by another embedder")
	// ErrDimension: a provider answered vectors of the wrong dimension.
	ErrDimension = errors.New("embedding has the wrong dimension")
	// ErrForbidden: the caller may read the document but not change it
	// (a shared one, for a user who is no administrator). Mapped to 403.
	ErrForbidden = errors.New("forbidden")
	// ErrNoLexicalIndex: the store keeps no lexical index (a Milvus
	// collection created without one); it can only search by vector.
	ErrNoLexicalIndex = errors.New("the vector store has no lexical index")
)

// SharedOwner owns the operator's shared library: the documents of
// POST /api/documents/import, which every user reads and only an
// administrator deletes. Every other owner is a user id (auth.UserID).
const SharedOwner uint64 = 0

// Reader is the owner whose documents a store's reads cover and whose
// documents an upload makes: the one AsReader set, else auth.UserID(ctx)
// (the built-in user when ctx carries no identity: AUTH_MODE=off).
func Reader(ctx context.Context) uint64 {
	if owner, ok := ctx.Value(readerKey{}).(uint64); ok {
		return owner
	}
	return auth.UserID(ctx)
}

type readerKey struct{}

// AsReader returns ctx acting as owner for the stores: the import reads and
// writes the shared library with AsReader(ctx, SharedOwner).
func AsReader(ctx context.Context, owner uint64) context.Context {
	return context.WithValue(ctx, readerKey{}, owner)
}

// MayDelete reports whether the user ctx acts for may delete a document of
// owner: their own, and the shared library's when they are an
// administrator (every request is, with AUTH_MODE=off).
func MayDelete(ctx context.Context, owner uint64) bool {
	id, ok := auth.FromContext(ctx)
	if !ok {
		id = auth.Builtin()
	}
	return owner == id.UserID || owner == SharedOwner && id.Admin
}

// Visible returns, in their order, the documents of docs (of any owners)
// that reader may read, without a shared copy of an MD5 of which the reader
// holds their own copy: a file is listed, cited and searched once.
func Visible(docs []Document, reader uint64) []Document {
	own := make(map[string]bool)
	for _, d := range docs {
		if d.Owner == reader {
			own[d.FileMD5] = true
		}
	}
	out := make([]Document, 0, len(docs))
	for _, d := range docs {
		if d.Owner == reader || d.Owner == SharedOwner && !own[d.FileMD5] {
			out = append(out, d)
		}
	}
	return out
}

// Document describes one stored file. It is also the FileUploadResponse body.
//
// A document belongs to the user who uploaded it (Owner), and its MD5 is
// unique per owner: two users who upload the same file hold two documents.
// A user's own copy hides a shared one of the same MD5 (see Visible).
type Document struct {
	// Owner is the uploader's user id, or SharedOwner. It is not in the
	// JSON: the response says only whether the document is Shared (set
	// with Owner by Owned).
	Owner    uint64 `json:"-"`
	Shared   bool   `json:"shared"`
	FileName string `json:"fileName"`
	// Title is the PDF's own title: its document information's, unless
	// that is a file name or a placeholder, else its first page's most
	// prominent line (pdftext.Document.Title); "" when it has none, and
	// DisplayTitle falls back to the file name.
	Title     string    `json:"title"`
	FileMD5   string    `json:"fileMd5"`
	Size      int64     `json:"size"`
	Pages     int       `json:"pages"`
	Chunks    int       `json:"chunks"`
	Truncated bool      `json:"truncated"`
	CreatedAt time.Time `json:"createdAt"`
}

// Owned returns d as owner's document: Owner and Shared set together.
func (d Document) Owned(owner uint64) Document {
	d.Owner, d.Shared = owner, owner == SharedOwner
	return d
}

// DisplayTitle is the document's title, or its file name without the
// extension when the PDF names none.
func (d Document) DisplayTitle() string {
	if d.Title != "" {
		return d.Title
	}
	return strings.TrimSuffix(d.FileName, filepath.Ext(d.FileName))
}

// Chunk is one piece of a document's text with its embedding.
// ID is OwnedChunkID(doc.Owner, doc.FileMD5, Index): the same file of the
// same owner always yields the same ids.
type Chunk struct {
	ID    string
	Page  int // 1-based page number
	Index int // 0-based position within the document
	// Heading is the nearest heading of the chunk's page: the page's
	// running heads from internal/furniture (the book's title, the
	// chapter's head) and the document outline's entries there, joined by
	// " / "; "" when none is known.
	Heading string
	// PageLabel is the page's printed label from the PDF's /PageLabels
	// ("iii", "3-12"), "" when the PDF has none (and in chunks stored
	// before labels were read).
	PageLabel string
	Text      string
	// OCR says that the text was read by OCR from the page's image (a
	// scanned page), not from the PDF's text layer. Chunks stored before
	// OCR existed read false.
	OCR bool
	// Navigation says that the chunk's page is mostly a table of contents
	// or an index (internal/furniture): retrieval ranks it below the
	// body's pages. Chunks stored before it was detected read false.
	Navigation bool
	// Rects are where an OCR chunk's text lies on its page: one rectangle
	// per line, from OCR's word boxes, in reading order. nil for text from
	// the PDF's text layer (located in the original at answer time) and
	// for chunks stored before OCR kept its boxes.
	Rects     []Rect
	Embedding []float32
}

// Rect is a rectangle on a page as shown: its left edge, top edge, width
// and height as fractions (0..1) of the page's width and height, the
// origin at the top left.
type Rect struct {
	X, Y, W, H float64
}

// RectScale is what the stores multiply a Rect's fractions by to keep them
// as whole numbers (ten-thousandths of the page: a tenth of a pixel at
// 1000 px), four numbers a rectangle.
const RectScale = 10000

// PackRects is rects as the stores keep them: [x, y, w, h] in RectScale
// units; nil for none.
func PackRects(rects []Rect) [][4]int {
	if len(rects) == 0 {
		return nil
	}
	out := make([][4]int, len(rects))
	for i, r := range rects {
		// By its edges, so that rounding keeps them on the page.
		x, y := scaled(r.X), scaled(r.Y)
		out[i] = [4]int{x, y, scaled(r.X+r.W) - x, scaled(r.Y+r.H) - y}
	}
	return out
}

// UnpackRects reads rectangles PackRects wrote. One that does not lie on
// the page (a number below 0, an edge past the page, no area) is left out,
// so a damaged or foreign value reads as fewer highlights, never as wrong
// ones off the page.
func UnpackRects(packed [][4]int) []Rect {
	var out []Rect
	for _, p := range packed {
		x, y, w, h := p[0], p[1], p[2], p[3]
		if x < 0 || y < 0 || w <= 0 || h <= 0 || x+w > RectScale || y+h > RectScale {
			continue
		}
		out = append(out, Rect{X: float64(x) / RectScale, Y: float64(y) / RectScale, W: float64(w) / RectScale, H: float64(h) / RectScale})
	}
	return out
}

func scaled(v float64) int { return int(math.Round(min(max(v, 0), 1) * RectScale)) }

// Query bounds one search of a store. A search covers only the documents
// that Reader(ctx) may read (their own and the shared library's, less the
// shared copies their own copies shadow: Visible), inside the store's own
// query.
type Query struct {
	TopK int
	// Documents limits the search to the documents with these MD5s, inside
	// the store's own query (never a filter applied to fewer results
	// afterwards); empty searches every document.
	Documents []string
}

// ScoredChunk is a search hit: the chunk (without its embedding), the
// document it belongs to, and the cosine similarity (higher is better).
type ScoredChunk struct {
	Chunk    Chunk
	Document Document
	Score    float32
}

// Passage is the chunk as models read it: its document's title and its
// heading, then its text. It is what is embedded and what a reranker sees.
func (h ScoredChunk) Passage() string {
	var b strings.Builder
	b.WriteString(h.Document.DisplayTitle())
	if h.Chunk.Heading != "" {
		b.WriteString(" / ")
		b.WriteString(h.Chunk.Heading)
	}
	b.WriteString("\n")
	b.WriteString(h.Chunk.Text)
	return b.String()
}

// Embedder turns texts into vectors of Dimension floats.
type Embedder interface {
	// Embed returns one vector per text, in order. Errors wrap
	// ErrUnavailable (provider down, 5xx, timeout) or ErrDimension.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the embedder and model ("openai:BAAI/bge-m3",
	// "lexical:v1"); the store refuses to mix vectors of different names.
	Name() string
}

// Role of a chat message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn sent to the chat model.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is what the service sends to a ChatModel.
type ChatRequest struct {
	Messages []Message
	// Question is the user's question as asked; the last of Messages
	// carries it too, after the context. A local fallback model answers it
	// from Sources without reading Messages.
	Question    string
	Temperature float64
	// Sources are the retrieved chunks, best first; a local fallback model
	// answers from them directly, a remote one gets them inside Messages.
	Sources []ScoredChunk
}

// ChatModel streams an answer.
type ChatModel interface {
	// Stream calls onDelta with each piece of the answer as it arrives and
	// returns the finish reason ("stop", "length", ...). It returns when the
	// answer is complete, ctx is cancelled, or onDelta returns an error.
	// Errors wrap ErrUnavailable when the provider is down or failed.
	Stream(ctx context.Context, req ChatRequest, onDelta func(content string) error) (finishReason string, err error)
	// Name identifies the provider and model, for /health and the log.
	Name() string
}

// Quoter is a ChatModel that writes no prose: its answer quotes passages
// of the sources (the local fallback when no chat model is configured).
// Clients are told so, since a quotation is not an answer.
type Quoter interface {
	ChatModel
	// Quoted returns the passages Stream quotes for question, in the order
	// it quotes them, before anything streams.
	Quoted(ctx context.Context, question string, sources []ScoredChunk) []Quote
}

// TermCounter is a VectorStore that counts the lexical terms of its chunks
// (the figures of BM25's inverse document frequency), so that a question's
// words can be weighed by how rare they are among the stored passages
// (relevance.Question.Weighted).
type TermCounter interface {
	// DocFreq returns how many stored chunks hold each of terms (index
	// terms, as lexical.Analyze makes them), of n chunks in all. Errors
	// wrap ErrNoLexicalIndex when the store keeps no lexical index.
	DocFreq(ctx context.Context, terms []string) (df []int, n int, err error)
}

// Quote is one passage a Quoter quotes: its position in the sources and
// the sentences of it the quote holds, in their order (what a page view
// marks of the passage).
type Quote struct {
	Index     int
	Sentences []string
}

// Reranker scores passages against a question with a cross-encoder (the
// common /rerank API of self-hostable rerank servers).
type Reranker interface {
	// Rerank returns one relevance score per passage, in the order of
	// passages (higher is more relevant). Errors wrap ErrUnavailable when
	// the provider is down or failed.
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
	// Name identifies the provider and model, for /health and the log.
	Name() string
}

// VectorStore keeps chunks with their embeddings and the metadata of the
// document they belong to (inside each chunk's metadata).
type VectorStore interface {
	// Upsert writes every chunk of doc (ids are deterministic, so writing the
	// same document twice writes the same rows). embedder is recorded with the
	// rows. Errors wrap ErrUnavailable or ErrEmbedderMismatch.
	Upsert(ctx context.Context, doc Document, chunks []Chunk, embedder string) error
	// Search returns at most q.TopK chunks most similar to vector, best
	// first; Score is the cosine similarity.
	Search(ctx context.Context, vector []float32, q Query) ([]ScoredChunk, error)
	// SearchText returns at most q.TopK chunks ranked by BM25 against the
	// terms of text (the chunk's text, its heading and its document's
	// title), best first; Score is the BM25 score (higher is better).
	// Errors wrap ErrNoLexicalIndex when the store keeps no lexical index.
	SearchText(ctx context.Context, text string, q Query) ([]ScoredChunk, error)
	// LexicalIndex reports whether SearchText can answer.
	LexicalIndex() bool
	// Document returns the document with that MD5 that Reader(ctx) may
	// read, their own copy before a shared one, or ErrNotFound.
	Document(ctx context.Context, md5 string) (Document, error)
	// Documents lists the documents Reader(ctx) may read, newest first,
	// without the shared copies their own copies shadow.
	Documents(ctx context.Context) ([]Document, error)
	// Owners lists, in ascending order, the owners holding a document
	// with that MD5, whoever reads: for de-duplication and for the
	// originals, which copies of one file share.
	Owners(ctx context.Context, md5 string) ([]uint64, error)
	// Delete removes owner's document with that MD5 and every chunk of it;
	// ErrNotFound when absent.
	Delete(ctx context.Context, owner uint64, md5 string) error
	// Embedder returns the name of the embedder that wrote the stored
	// vectors, or "" when the store is empty.
	Embedder(ctx context.Context) (string, error)
	// Ping reports whether the store answers (for /health).
	Ping(ctx context.Context) error
	Close() error
}

// Schema is a JSON schema that a StructuredModel's answer must be valid
// against.
type Schema struct {
	// Name names the schema to the provider: letters, digits, '_' and
	// '-', at most 64 characters.
	Name        string
	Description string
	// Schema is the JSON schema itself, in the subset OpenAI's strict
	// structured outputs accept (every property required, no additional
	// properties).
	Schema map[string]any
}

// StructuredModel is a chat model that answers with one JSON document
// valid against a schema (OpenAI's response_format json_schema, which
// OpenAI-compatible servers such as vLLM, llama.cpp and Ollama accept).
type StructuredModel interface {
	// Structured sends messages and returns the JSON document the model
	// answered. Errors wrap ErrUnavailable when the provider is down or
	// failed, or answered no JSON document.
	Structured(ctx context.Context, messages []Message, schema Schema) ([]byte, error)
}

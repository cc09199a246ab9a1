// Package docqa holds the nouns of the document question-answering service:
// documents, chunks and retrieved sources, and the small interfaces that the
// HTTP layer consumes (Embedder, ChatModel, VectorStore). Implementations live
// in their own packages, one per technology (milvus, embedded, provider).
package docqa

import (
	"context"
	"errors"
	"time"
)

// Contract constants of docqa-service-api.md.
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
)

// Document describes one stored file. It is also the FileUploadResponse body.
type Document struct {
	FileName  string    `json:"fileName"`
	FileMD5   string    `json:"fileMd5"`
	Size      int64     `json:"size"`
	Pages     int       `json:"pages"`
	Chunks    int       `json:"chunks"`
	Truncated bool      `json:"truncated"`
	CreatedAt time.Time `json:"createdAt"`
}

// Chunk is one piece of a document's text with its embedding.
// ID is ChunkID(doc.FileMD5, Index): the same file always yields the same ids.
type Chunk struct {
	ID        string
	Page      int // 1-based page number
	Index     int // 0-based position within the document
	Text      string
	Embedding []float32
}

// ScoredChunk is a search hit: the chunk (without its embedding), the
// document it belongs to, and the cosine similarity (higher is better).
type ScoredChunk struct {
	Chunk    Chunk
	Document Document
	Score    float32
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
	Messages    []Message
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

// VectorStore keeps chunks with their embeddings and the metadata of the
// document they belong to (inside each chunk's metadata).
type VectorStore interface {
	// Upsert writes every chunk of doc (ids are deterministic, so writing the
	// same document twice writes the same rows). embedder is recorded with the
	// rows. Errors wrap ErrUnavailable or ErrEmbedderMismatch.
	Upsert(ctx context.Context, doc Document, chunks []Chunk, embedder string) error
	// Search returns at most topK chunks most similar to vector, best first.
	Search(ctx context.Context, vector []float32, topK int) ([]ScoredChunk, error)
	// Document returns the stored document with that MD5, or ErrNotFound.
	Document(ctx context.Context, md5 string) (Document, error)
	// Documents lists stored documents, newest first.
	Documents(ctx context.Context) ([]Document, error)
	// Delete removes every chunk of the document; ErrNotFound when absent.
	Delete(ctx context.Context, md5 string) error
	// Embedder returns the name of the embedder that wrote the stored
	// vectors, or "" when the store is empty.
	Embedder(ctx context.Context) (string, error)
	// Ping reports whether the store answers (for /health).
	Ping(ctx context.Context) error
	Close() error
}

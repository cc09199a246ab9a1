package docqa

import (
	"context"
	"sync"
)

// A search memo lets a store work out what a reader may search once for
// all the searches of one question (its lexical and its vector search)
// rather than once per search: with Milvus that is a query of the
// readable documents. The retriever puts one in each question's context;
// without one, Remember computes every time.

type searchMemoKey struct{}

type searchMemo struct {
	mu     sync.Mutex
	values map[any]any
}

// WithSearchMemo returns ctx with an empty search memo, for the searches
// of one question.
func WithSearchMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, searchMemoKey{}, &searchMemo{values: map[any]any{}})
}

// Remember returns what ctx's search memo holds for key, computing it with
// compute the first time (a second caller waits for the first); without a
// memo in ctx it calls compute. An error is not remembered. key must be
// comparable and name everything the value depends on (the store, the
// reader).
func Remember[T any](ctx context.Context, key any, compute func() (T, error)) (T, error) {
	m, _ := ctx.Value(searchMemoKey{}).(*searchMemo)
	if m == nil {
		return compute()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.values[key]; ok {
		return v.(T), nil
	}
	v, err := compute()
	if err == nil {
		m.values[key] = v
	}
	return v, err
}

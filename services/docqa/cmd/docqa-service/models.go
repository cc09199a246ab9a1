package main

import (
	"context"
	"log/slog"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/provider"
	"github.com/carhub/backend/services/docqa/internal/retrieval"
)

// models are the embedder, the chat model and the retriever the service
// answers with, and how each of the first two was configured ("remote" or
// "local").
type models struct {
	embedder     docqa.Embedder
	embedderMode string
	chat         docqa.ChatModel
	chatMode     string
	retriever    *retrieval.Retriever
}

// newModels builds the providers, checks that the embedder is the one the
// store's vectors were made with, and says which retrieval serves.
func newModels(ctx context.Context, cfg serviceConfig, store docqa.VectorStore, m *provider.Metrics, log *slog.Logger) (models, error) {
	var (
		md  models
		err error
	)
	if md.embedder, md.embedderMode, err = newEmbedder(cfg, m); err != nil {
		return models{}, err
	}
	if md.chat, md.chatMode, err = newChat(cfg, store, m); err != nil {
		return models{}, err
	}
	if md.embedderMode == "local" || md.chatMode == "local" {
		log.Warn("running on local fallbacks: answers quote passages and retrieval is lexical where marked local",
			"embedder", md.embedder.Name(), "embedder_mode", md.embedderMode, "chat", md.chat.Name(), "chat_mode", md.chatMode)
	}
	if err := checkEmbedder(ctx, store, md.embedder); err != nil {
		return models{}, err
	}
	if md.retriever, err = newRetriever(cfg, store, md.embedder, md.embedderMode == "local", log, m); err != nil {
		return models{}, err
	}
	log.Info("retrieval", "mode", md.retriever.Configured(), "reason", md.retriever.Reason())
	if md.retriever.Effective() != md.retriever.Configured() {
		log.Warn("the vector store has no lexical index: retrieval is vector-only until the collection is re-indexed "+
			"(docqa-service reindex)", "retrieval", md.retriever.Configured(), "serving", md.retriever.Effective())
	}
	return md, nil
}

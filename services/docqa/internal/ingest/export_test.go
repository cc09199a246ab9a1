package ingest

// MaxChunks is the most chunks p stores of one document.
func MaxChunks(p *Pipeline) int { return p.maxChunks }

// SetMaxChunks makes p store at most n chunks of one document, so a test
// reaches the limit with a few pages.
func SetMaxChunks(p *Pipeline, n int) { p.maxChunks = n }

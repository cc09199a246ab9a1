// Package systemtest holds the fault tests of the docqa service: they build
// the real docqa-service binary, run it as a separate process with its
// embedded vector store on disk and the OpenAI-compatible providers served by
// internal/openaifake, and break things the way production breaks them: a
// provider that hangs, a client that cuts its upload off, a process killed in
// the middle of an ingestion. The package has no code of its own beyond this
// comment; see proto-docs/system-tests.md.
package systemtest

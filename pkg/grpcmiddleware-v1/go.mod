// go-grpc-middleware v1's retry API, served by v2's retry interceptor.
//
// Milvus's Go client imports github.com/grpc-ecosystem/go-grpc-middleware/retry
// (v1), which imports golang.org/x/net/trace unconditionally; that package's
// HTML templates make the linker keep every exported method of every type in
// docqa (about 28 MB of its 86). v2's retry is the same interceptor, kept up to
// date, and leaves x/net/trace out under its retrynotrace build tag. services/
// docqa/go.mod replaces v1 with this module; see proto-docs/dependency-decisions.md,
// "docqa's binary size".
module github.com/grpc-ecosystem/go-grpc-middleware

go 1.26.8

require (
	github.com/grpc-ecosystem/go-grpc-middleware/v2 v2.3.4
	google.golang.org/grpc v1.84.0
)

require (
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

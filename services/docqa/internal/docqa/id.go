package docqa

import (
	"strconv"

	"github.com/google/uuid"

	"github.com/carhub/backend/pkg/auth"
)

// chunkNamespace makes chunk ids of this service distinct from other
// name-based UUIDs that may share a collection.
var chunkNamespace = uuid.MustParse("6f1c1f4e-2b9a-4c55-9a1e-3d1b7c0f5a10")

// ChunkID is the primary key of a chunk of the built-in user's document:
// OwnedChunkID(auth.BuiltinUserID, fileMD5, index).
func ChunkID(fileMD5 string, index int) string {
	return OwnedChunkID(auth.BuiltinUserID, fileMD5, index)
}

// OwnedChunkID is the primary key of a chunk: a name-based (version 5) UUID
// of its document's owner, the file's MD5 and the chunk index, 36
// characters, so re-ingesting a file overwrites the same rows instead of
// adding new ones. The built-in user's ids leave the owner out: they are
// the ids every chunk had before documents had owners.
func OwnedChunkID(owner uint64, fileMD5 string, index int) string {
	name := fileMD5 + "/" + strconv.Itoa(index)
	if owner != auth.BuiltinUserID {
		name = strconv.FormatUint(owner, 10) + "/" + name
	}
	return uuid.NewSHA1(chunkNamespace, []byte(name)).String()
}

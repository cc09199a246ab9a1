package docqa

import (
	"strconv"

	"github.com/google/uuid"
)

// chunkNamespace makes chunk ids of this service distinct from other
// name-based UUIDs that may share a collection.
var chunkNamespace = uuid.MustParse("6f1c1f4e-2b9a-4c55-9a1e-3d1b7c0f5a10")

// ChunkID is the primary key of a chunk: a name-based (version 5) UUID of the
// file's MD5 and the chunk index, 36 characters, so re-ingesting a file
// overwrites the same rows instead of adding new ones.
func ChunkID(fileMD5 string, index int) string {
	return uuid.NewSHA1(chunkNamespace, []byte(fileMD5+"/"+strconv.Itoa(index))).String()
}

package backup

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carhub/backend/services/docqa/internal/docqa"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/originals"
)

const embedderName = "test:v1"

// data is a store and a directory of originals opened as the service opens
// them.
type data struct {
	paths Paths
	store *embedded.Store
	files *originals.Dir
	tmp   string // where originals are written before they are kept
}

func openData(t *testing.T, paths Paths) *data {
	t.Helper()
	s, err := embedded.Open(paths.Store, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f, err := originals.Open(paths.Files)
	if err != nil {
		t.Fatal(err)
	}
	return &data{paths: paths, store: s, files: f, tmp: t.TempDir()}
}

func newPaths(t *testing.T) Paths {
	root := t.TempDir()
	return Paths{Store: filepath.Join(root, "vectors"), Files: filepath.Join(root, "docqa-files")}
}

// original is the PDF bytes of document i: a few KiB that differ per
// document.
func original(i int) []byte {
	return []byte(fmt.Sprintf("%%PDF-1.4\n%% the original of document %d\n%s%%%%EOF\n", i, strings.Repeat(fmt.Sprintf("page text %d ", i), 300+i%50)))
}

func md5Of(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// ingest stores document i the way ingestion does: its original is kept
// first, then the document is upserted.
func (d *data) ingest(ctx context.Context, i int) (string, error) {
	pdf := original(i)
	id := md5Of(pdf)
	f, err := os.CreateTemp(d.tmp, "upload-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(pdf); err != nil {
		return "", err
	}
	if err := d.files.Keep(id, sha256.Sum256(pdf), f, int64(len(pdf))); err != nil {
		return "", err
	}
	const n = 12
	doc := docqa.Document{Owner: 1, FileName: fmt.Sprintf("manual-%d.pdf", i), Title: fmt.Sprintf("Manual %d", i), FileMD5: id,
		Size: int64(len(pdf)), Pages: 3, Chunks: n, CreatedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)}
	chunks := make([]docqa.Chunk, n)
	for j := range chunks {
		v := make([]float32, docqa.Dimension)
		for k := range v {
			v[k] = float32((i*31+j*7+k)%97) / 97
		}
		chunks[j] = docqa.Chunk{Page: j/4 + 1, Index: j, Heading: fmt.Sprintf("Section %d", j/4), Text: fmt.Sprintf("document %d chunk %d", i, j), Embedding: v}
	}
	return id, d.store.Upsert(ctx, doc, chunks, embedderName)
}

// remove deletes a document the way the service does: the document, then
// its original.
func (d *data) remove(ctx context.Context, id string) error {
	if err := d.store.Delete(ctx, 1, id); err != nil {
		return err
	}
	return d.files.Remove(id)
}

// dump returns every row of the documents and chunks tables of the store
// under dir, in key order.
func dump(t *testing.T, dir string) (docs, chunks [][]any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, embedded.DBName)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	read := func(query string) [][]any {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return read("SELECT md5, * FROM documents ORDER BY md5, owner"), read("SELECT id, md5, * FROM chunks ORDER BY id")
}

// TestBackupWhileWriting archives the data while one writer keeps
// ingesting new documents and another keeps ingesting and deleting one
// more, restores the archive into new directories, opens it as the service
// would and compares every document, chunk and original: the restored
// documents are the first k the writer stored (before <= k <= after), plus
// perhaps the churned one, each equal to the source's and each with its
// original, byte for byte.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	src := openData(t, newPaths(t))
	const seeded = 40
	order := make([]string, 0, 200)
	for i := 0; i < seeded; i++ {
		id, err := src.ingest(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, id)
	}
	var written atomic.Int64
	written.Store(seeded)
	ids := make(chan string, 10000)
	stop := make(chan struct{})
	errs := make(chan error, 2)
	go func() { // the writer
		for i := seeded; ; i++ {
			select {
			case <-stop:
				errs <- nil
				return
			default:
			}
			id, err := src.ingest(ctx, i)
			if err != nil {
				errs <- err
				return
			}
			ids <- id
			written.Add(1)
		}
	}()
	const churn = 100000 // a document number the writer never reaches
	var churned atomic.Int64
	go func() { // the churner: the same document stored and deleted again and again
		for {
			select {
			case <-stop:
				_, err := src.ingest(ctx, churn) // left stored, for the comparison
				errs <- err
				return
			default:
			}
			id, err := src.ingest(ctx, churn)
			if err == nil {
				err = src.remove(ctx, id)
			}
			if err != nil {
				errs <- err
				return
			}
			churned.Add(1)
		}
	}()
	for written.Load() < seeded+3 || churned.Load() < 3 {
		time.Sleep(time.Millisecond)
	}

	archive := filepath.Join(t.TempDir(), "docqa.tar")
	var manifests []Manifest
	var before, after int64
	for round := 0; round < 3; round++ { // more rounds, more chances to meet a deletion
		dst := archive
		if round > 0 {
			dst = filepath.Join(t.TempDir(), "docqa.tar")
		}
		b := written.Load()
		m, err := Write(ctx, src.paths, dst, false)
		a := written.Load() + 1 // one ingestion may have stored its document uncounted
		if err != nil {
			close(stop)
			t.Fatalf("backup: %v", err)
		}
		if round == 0 {
			before, after = b, a
		}
		manifests = append(manifests, m)
	}
	close(stop)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	close(ids)
	for id := range ids {
		order = append(order, id)
	}
	t.Logf("%d documents written, the churned one stored and deleted %d times; the first backup holds %d documents",
		written.Load(), churned.Load(), manifests[0].Documents)
	if written.Load() == before {
		t.Fatal("no document was written during the backup: the test proves nothing")
	}
	churnID := md5Of(original(churn))
	for i, m := range manifests {
		if len(m.WithoutOriginal) > 0 {
			t.Errorf("backup %d holds documents without their original: %v (deleted after the snapshot, not taken again)", i, m.WithoutOriginal)
		}
	}
	m := manifests[0]
	if names := listDir(t, filepath.Dir(archive)); !slices.Equal(names, []string{"docqa.tar"}) {
		t.Errorf("the backup's directory holds %v", names)
	}

	to := newPaths(t)
	restored, err := Restore(ctx, archive, to, false)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !reflect.DeepEqual(restored, m) {
		t.Errorf("restore read the manifest %+v, backup wrote %+v", restored, m)
	}
	r, err := embedded.Open(to.Store, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := r.Documents(ctx)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	hasChurn := false
	for _, d := range docs {
		if d.FileMD5 == churnID {
			hasChurn = true
			continue
		}
		got = append(got, d.FileMD5)
	}
	k := int64(len(got))
	if k < before || k > after {
		t.Fatalf("%d documents restored, want between %d and %d", k, before, after)
	}
	want := slices.Clone(order[:k])
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("the restored documents are not the first %d written", k)
	}

	srcDocs, srcChunks := dump(t, src.paths.Store)
	gotDocs, gotChunks := dump(t, to.Store)
	keep := map[string]bool{}
	for _, id := range got {
		keep[id] = true
	}
	keep[churnID] = hasChurn
	var wantDocs, wantChunks [][]any
	for _, row := range srcDocs {
		if keep[row[0].(string)] {
			wantDocs = append(wantDocs, row)
		}
	}
	for _, row := range srcChunks {
		if keep[row[1].(string)] {
			wantChunks = append(wantChunks, row)
		}
	}
	if !reflect.DeepEqual(gotDocs, wantDocs) {
		t.Errorf("documents: %d rows restored differ from the source's %d", len(gotDocs), len(wantDocs))
	}
	if !reflect.DeepEqual(gotChunks, wantChunks) || len(gotChunks) != m.Chunks {
		t.Errorf("chunks: %d rows restored (manifest %d) differ from the source's %d", len(gotChunks), m.Chunks, len(wantChunks))
	}

	files := listDir(t, to.Files)
	if len(files) != len(docs) {
		t.Errorf("%d originals restored for %d documents", len(files), len(docs))
	}
	for _, d := range docs {
		name, _ := originals.FileName(d.FileMD5)
		b, err := os.ReadFile(filepath.Join(to.Files, name))
		if err != nil {
			t.Fatalf("original of %s: %v", d.FileMD5, err)
		}
		want, err := os.ReadFile(filepath.Join(src.paths.Files, name))
		if err != nil || !bytes.Equal(b, want) || md5Of(b) != d.FileMD5 {
			t.Fatalf("original of %s: restored %d bytes differ from the source's (%v)", d.FileMD5, len(b), err)
		}
	}
	if names := listDir(t, filepath.Dir(to.Store)); !slices.Equal(names, []string{"docqa-files", "vectors"}) {
		t.Errorf("beside the restored directories: %v", names)
	}
	// The restored data opens as the service opens it, and serves.
	d := openData(t, to)
	hits, err := d.store.SearchText(ctx, "document chunk", docqa.Query{TopK: 3})
	if err != nil || len(hits) != 3 {
		t.Fatalf("search of the restored store: %d hits, %v", len(hits), err)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// mustArchive backs up n documents and returns the archive's path.
func mustArchive(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	src := openData(t, newPaths(t))
	for i := 0; i < n; i++ {
		if _, err := src.ingest(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "docqa.tar")
	if _, err := Write(ctx, src.paths, dst, false); err != nil {
		t.Fatal(err)
	}
	return dst
}

type tarEntry struct {
	hdr  *tar.Header
	data []byte
}

func readTar(t *testing.T, path string) []tarEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var out []tarEntry
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tarEntry{hdr, b})
	}
}

func writeTar(t *testing.T, entries []tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := *e.hdr
		h.Size = int64(len(e.data))
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// editManifest returns entries with the manifest changed by edit.
func editManifest(t *testing.T, entries []tarEntry, edit func(*Manifest)) []tarEntry {
	t.Helper()
	var m Manifest
	if err := json.Unmarshal(entries[0].data, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	b, _ := json.Marshal(m)
	out := slices.Clone(entries)
	out[0] = tarEntry{entries[0].hdr, b}
	return out
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestRestoreRefusesDamagedArchives: an archive that does not hold is
// refused with an error that says why, and nothing is written.
func TestRestoreRefusesDamagedArchives(t *testing.T) {
	good := mustArchive(t, 5)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	entries := readTar(t, good)
	if entries[0].hdr.Name != "manifest.json" || entries[1].hdr.Name != "vectors.db" || len(entries) != 7 {
		t.Fatalf("archive layout: %d entries, %s then %s", len(entries), entries[0].hdr.Name, entries[1].hdr.Name)
	}
	flip := func(i, at int) []tarEntry {
		out := slices.Clone(entries)
		b := slices.Clone(out[i].data)
		b[at] ^= 0xff
		out[i] = tarEntry{out[i].hdr, b}
		return out
	}
	// A database page garbled, its checksum recomputed: only opening the
	// store finds it.
	garbled := slices.Clone(entries)
	db := slices.Clone(entries[1].data)
	for i := 4096; i < 2*4096; i++ {
		db[i] = 0x5a
	}
	garbled[1] = tarEntry{entries[1].hdr, db}
	garbled = editManifest(t, garbled, func(m *Manifest) { m.Database.SHA256 = sha(db) })

	tests := []struct {
		name    string
		archive []byte
		want    string
	}{
		{"truncated in the middle", raw[:len(raw)/2], "truncated"},
		{"truncated after the manifest", writeTar(t, entries[:1]), "entries of the manifest are missing"},
		{"last original missing", writeTar(t, entries[:len(entries)-1]), "entries of the manifest are missing"},
		{"an original altered", writeTar(t, flip(4, 100)), "does not match its checksum"},
		{"the database altered", writeTar(t, flip(1, 5000)), "vectors.db does not match its checksum"},
		{"garbled database page, checksum fixed", writeTar(t, garbled), "malformed"},
		{"newer format", writeTar(t, editManifest(t, entries, func(m *Manifest) { m.Format = 2 })), "archive format 2"},
		{"an original listed twice", writeTar(t, editManifest(t, entries, func(m *Manifest) { m.Originals = append(m.Originals, m.Originals[0]) })), "listed twice"},
		{"an original not named by an MD5", writeTar(t, editManifest(t, entries, func(m *Manifest) { m.Originals[0].Name = "originals/../../x.pdf" })), "not named originals/<md5>.pdf"},
		{"an original left out of the manifest", writeTar(t, editManifest(t, entries, func(m *Manifest) { m.Originals = m.Originals[1:] })), "not in the manifest"},
		{"a document without its original", writeTar(t, editManifest(t, append(slices.Clone(entries[:2]), entries[3:]...), func(m *Manifest) { m.Originals = m.Originals[1:] })), "manifest names 5, and 4"},
		{"an entry twice", writeTar(t, append(slices.Clone(entries), entries[2])), "twice in the archive"},
		{"no manifest first", writeTar(t, entries[1:]), "not manifest.json"},
		{"not a tar file", bytes.Repeat([]byte("not an archive "), 100), "no manifest"},
		{"empty", nil, "no manifest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			archive := filepath.Join(t.TempDir(), "bad.tar")
			if err := os.WriteFile(archive, tt.archive, 0o600); err != nil {
				t.Fatal(err)
			}
			to := newPaths(t)
			_, err := Restore(context.Background(), archive, to, false)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was restored") {
				t.Fatalf("restore: %v; want ErrDamaged saying %q", err, tt.want)
			}
			if names := listDir(t, filepath.Dir(to.Store)); len(names) > 0 {
				t.Errorf("a refused restore left %v", names)
			}
		})
	}
}

// TestRestoreTargets: locations that hold anything are refused unless
// replace; a store in use is never replaced; replace replaces both
// directories whole.
func TestRestoreTargets(t *testing.T) {
	ctx := context.Background()
	archive := mustArchive(t, 3)

	t.Run("not empty, not replaced", func(t *testing.T) {
		for _, which := range []string{"store", "files"} {
			to := newPaths(t)
			dir := map[string]string{"store": to.Store, "files": to.Files}[which]
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "something"), []byte("kept"), 0o600)
			_, err := Restore(ctx, archive, to, false)
			if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("%s not empty: %v, want ErrNotEmpty naming %s and --force", which, err, dir)
			}
			if names := listDir(t, filepath.Dir(to.Store)); len(names) != 1 {
				t.Errorf("beside the targets: %v", names)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "something")); string(b) != "kept" {
				t.Error("the file in the target was changed")
			}
		}
	})

	t.Run("empty directories are filled", func(t *testing.T) {
		to := newPaths(t)
		os.MkdirAll(to.Store, 0o755)
		os.MkdirAll(to.Files, 0o700)
		if _, err := Restore(ctx, archive, to, false); err != nil {
			t.Fatal(err)
		}
		if n := len(listDir(t, to.Files)); n != 3 {
			t.Errorf("%d originals restored, want 3", n)
		}
	})

	t.Run("replace", func(t *testing.T) {
		to := newPaths(t)
		old := openData(t, to)
		for i := 10; i < 15; i++ {
			if _, err := old.ingest(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(to.Store, "vectors.log.converted"), []byte("old"), 0o600)
		if err := old.store.Close(); err != nil {
			t.Fatal(err)
		}
		m, err := Restore(ctx, archive, to, true)
		if err != nil {
			t.Fatal(err)
		}
		if names := listDir(t, to.Store); !slices.Equal(names, []string{"vectors.db"}) {
			t.Errorf("the restored store's directory holds %v", names)
		}
		var want []string
		for _, e := range m.Originals {
			want = append(want, filepath.Base(e.Name))
		}
		if names := listDir(t, to.Files); !slices.Equal(names, want) {
			t.Errorf("the restored originals are %v, want %v", names, want)
		}
		if names := listDir(t, filepath.Dir(to.Store)); !slices.Equal(names, []string{"docqa-files", "vectors"}) {
			t.Errorf("beside the restored directories: %v", names)
		}
		d := openData(t, to)
		docs, _ := d.store.Documents(ctx)
		if len(docs) != 3 {
			t.Fatalf("%d documents after the restore, want the archive's 3", len(docs))
		}
	})

	t.Run("replace refuses a store in use", func(t *testing.T) {
		to := newPaths(t)
		running := openData(t, to)
		id, err := running.ingest(ctx, 20)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Restore(ctx, archive, to, true)
		if !errors.Is(err, embedded.ErrInUse) {
			t.Fatalf("restore over an open store: %v, want ErrInUse", err)
		}
		if _, err := running.store.Document(ctx, id); err != nil {
			t.Errorf("the running store lost its document: %v", err)
		}
		if _, err := running.ingest(ctx, 21); err != nil {
			t.Errorf("the running store no longer writes: %v", err)
		}
		if names := listDir(t, filepath.Dir(to.Store)); len(names) != 2 {
			t.Errorf("beside the targets: %v", names)
		}
	})

	t.Run("nested directories", func(t *testing.T) {
		root := t.TempDir()
		_, err := Restore(ctx, archive, Paths{Store: root, Files: filepath.Join(root, "files")}, true)
		if err == nil || !strings.Contains(err.Error(), "two separate directories") {
			t.Fatalf("nested targets: %v", err)
		}
	})
}

// TestBackupWithoutOriginals: documents stored before originals were kept
// are archived and restored without one, and listed so.
func TestBackupWithoutOriginals(t *testing.T) {
	ctx := context.Background()
	src := openData(t, newPaths(t))
	var ids []string
	for i := 0; i < 3; i++ {
		id, err := src.ingest(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := src.files.Remove(ids[1]); err != nil { // as if uploaded before originals were kept
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "b.tar")
	m, err := Write(ctx, src.paths, archive, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.WithoutOriginal, []string{ids[1]}) || len(m.Originals) != 2 || m.Documents != 3 {
		t.Fatalf("manifest: %+v", m)
	}
	to := newPaths(t)
	if _, err := Restore(ctx, archive, to, false); err != nil {
		t.Fatal(err)
	}
	if n := len(listDir(t, to.Files)); n != 2 {
		t.Errorf("%d originals restored, want 2", n)
	}
	for _, inData := range []string{filepath.Join(src.paths.Store, embedded.DBName), filepath.Join(src.paths.Files, "sub", "b.tar")} {
		if _, err := Write(ctx, src.paths, inData, true); err == nil || !strings.Contains(err.Error(), "inside the data it copies") {
			t.Errorf("backup to %s: %v", inData, err)
		}
	}
	if _, err := Write(ctx, src.paths, archive, false); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("backup over an existing archive: %v, want ErrNotEmpty", err)
	}
	if _, err := Write(ctx, src.paths, archive, true); err != nil {
		t.Errorf("backup with overwrite: %v", err)
	}
}

// TestBackupRetriesADeletedDocument: a document deleted after the snapshot
// was taken (its original gone with it) makes the backup take a new
// snapshot, which no longer holds it; deletions at every attempt end it
// with an error.
func TestBackupRetriesADeletedDocument(t *testing.T) {
	ctx := context.Background()
	src := openData(t, newPaths(t))
	var ids []string
	for i := 0; i < 3+attempts; i++ {
		id, err := src.ingest(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var deletions int
	t.Cleanup(func() { afterSnapshot = func() {} })
	afterSnapshot = func() {
		if deletions < 2 {
			if err := src.remove(ctx, ids[deletions]); err != nil {
				t.Error(err)
			}
			deletions++
		}
	}
	m, err := Write(ctx, src.paths, filepath.Join(t.TempDir(), "b.tar"), false)
	if err != nil {
		t.Fatal(err)
	}
	if m.Documents != len(ids)-2 || len(m.Originals) != len(ids)-2 || len(m.WithoutOriginal) != 0 {
		t.Fatalf("after two deletions during the backup: %d documents, %d originals, without original %v; want %d, %d, none",
			m.Documents, len(m.Originals), m.WithoutOriginal, len(ids)-2, len(ids)-2)
	}

	next := 2
	afterSnapshot = func() {
		if err := src.remove(ctx, ids[next]); err != nil {
			t.Error(err)
		}
		next++
	}
	dst := filepath.Join(t.TempDir(), "b.tar")
	_, err = Write(ctx, src.paths, dst, false)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("deleted during each of %d attempts", attempts)) {
		t.Fatalf("deletions at every attempt: %v", err)
	}
	if names := listDir(t, filepath.Dir(dst)); len(names) > 0 {
		t.Errorf("a failed backup left %v", names)
	}
}

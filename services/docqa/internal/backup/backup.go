// Package backup writes and restores one archive of docqa-service's
// embedded data: a consistent copy of the embedded vector store's database
// and the kept original of every document in that copy.
//
// The archive is a POSIX tar file. Its first entry is manifest.json (the
// format version, what the archive holds, the size and SHA-256 of every
// other entry); then vectors.db; then originals/<md5>.pdf for each
// document whose original was kept. Any tar tool can list or unpack it.
package backup

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carhub/backend/pkg/atomicfile"
	"github.com/carhub/backend/services/docqa/internal/embedded"
	"github.com/carhub/backend/services/docqa/internal/originals"
)

// Format is the version of the archive's layout; Restore reads this one
// only.
const Format = 1

const (
	manifestName = "manifest.json"
	originalsDir = "originals/"
	// maxManifest bounds the manifest read from an archive: a few
	// hundred bytes a document.
	maxManifest = 64 << 20
	// attempts is how often Write takes a new snapshot when documents of
	// the last one were deleted before their originals could be opened.
	attempts = 5
)

// afterSnapshot runs between Write's snapshot and its opening of the
// originals: tests delete a document there, as a user may.
var afterSnapshot = func() {}

// ErrNotEmpty is wrapped by Restore's error when a target directory holds
// something and replacing it was not asked for, and by Write's when the
// archive file exists (atomicfile's sentinel: the same error whichever
// step found the target taken).
var ErrNotEmpty = atomicfile.ErrNotEmpty

// ErrDamaged is wrapped by Restore's error when the archive is not one
// Restore can trust: truncated, altered, not an archive of this format.
var ErrDamaged = errors.New("the archive is damaged or not a docqa-service backup")

// Paths are the two locations of the embedded data: the vector store's
// directory (DOCQA_STORE_PATH) and the originals' (DOCQA_FILES_DIR).
type Paths struct {
	Store string
	Files string
}

// Manifest describes an archive. It is its first entry.
type Manifest struct {
	Format    int       `json:"format"`
	Service   string    `json:"service"`
	CreatedAt time.Time `json:"createdAt"`
	// Database is vectors.db, a consistent snapshot of the store.
	Database Entry `json:"database"`
	// Documents and Chunks are the snapshot's counts.
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	// Originals holds one entry per document with a kept original, named
	// originals/<md5>.pdf, in MD5 order.
	Originals []Entry `json:"originals"`
	// WithoutOriginal lists the documents stored without a kept original
	// (uploaded before the service kept them), in MD5 order.
	WithoutOriginal []string `json:"withoutOriginal"`
}

// Entry is one file of the archive.
type Entry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Write makes the archive dst from the embedded data at from, while
// docqa-service may be running on it and ingesting or deleting documents.
//
// The store's database is copied first (embedded.Snapshot: one SQLite
// snapshot); then the original of each document in that copy is opened.
// Ingestion keeps an original before it stores the document and deletion
// removes the document before its original, so every document of the
// snapshot has its original unless it was deleted since: then a new
// snapshot is taken, at most attempts times. An original is never changed
// in place (one is replaced only while no document uses it, and by a new
// file renamed over it), and an open file keeps its bytes
// even when it is removed, so what is archived is the snapshot's.
//
// The archive is written beside dst under a temporary name, synced, and
// only then named dst: dst is absent or whole. An existing dst is an
// error wrapping ErrNotEmpty unless overwrite.
func Write(ctx context.Context, from Paths, dst string, overwrite bool) (Manifest, error) {
	if inside(filepath.Dir(dst), from.Store) || inside(filepath.Dir(dst), from.Files) {
		return Manifest{}, fmt.Errorf("the backup %s would be written inside the data it copies: write it elsewhere", dst)
	}
	if _, err := os.Lstat(dst); err == nil && !overwrite {
		return Manifest{}, fmt.Errorf("%s exists (%w): choose another name or pass --force to replace it", dst, ErrNotEmpty)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("create the backup's directory: %w", err)
	}
	snapshot, err := atomicfile.Reserve(dir, "."+filepath.Base(dst)+".db-*")
	if err != nil {
		return Manifest{}, err
	}
	defer os.Remove(snapshot)

	var (
		contents embedded.Contents
		files    map[string]*os.File
		missing  []string
	)
	defer func() { closeAll(files) }()
	for attempt := 1; ; attempt++ {
		closeAll(files)
		if err := os.Truncate(snapshot, 0); err != nil { // VACUUM INTO writes an empty file only
			return Manifest{}, err
		}
		if err := embedded.Snapshot(ctx, from.Store, snapshot); err != nil {
			return Manifest{}, err
		}
		if contents, err = embedded.ReadContents(ctx, snapshot); err != nil {
			return Manifest{}, err
		}
		afterSnapshot()
		if files, missing, err = openOriginals(from.Files, contents.Documents); err != nil {
			return Manifest{}, err
		}
		deleted, err := deletedSince(ctx, from.Store, missing)
		if err != nil {
			return Manifest{}, err
		}
		if len(deleted) == 0 {
			break
		}
		if attempt == attempts {
			return Manifest{}, fmt.Errorf("documents were deleted during each of %d attempts (last: %s): try again", attempts, deleted[0])
		}
	}

	m := Manifest{Format: Format, Service: "docqa-service", CreatedAt: time.Now().UTC(),
		Documents: len(contents.Documents), Chunks: contents.Chunks, Originals: []Entry{}, WithoutOriginal: missing}
	if m.WithoutOriginal == nil {
		m.WithoutOriginal = []string{}
	}
	db, err := os.Open(snapshot)
	if err != nil {
		return Manifest{}, err
	}
	defer db.Close()
	if m.Database, err = entryOf(embedded.DBName, db); err != nil {
		return Manifest{}, err
	}
	for _, md5 := range contents.Documents {
		if f, ok := files[md5]; ok {
			e, err := entryOf(originalsDir+md5+".pdf", f)
			if err != nil {
				return Manifest{}, err
			}
			m.Originals = append(m.Originals, e)
		}
	}

	tmp, err := atomicfile.Reserve(dir, "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return Manifest{}, err
	}
	defer os.Remove(tmp) // gone already once it is dst
	if err := writeArchive(tmp, m, db, files); err != nil {
		return Manifest{}, err
	}
	if err := atomicfile.Place(tmp, dst, overwrite); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// openOriginals opens the original of each md5 in the directory files;
// missing lists the MD5s that have none.
func openOriginals(files string, md5s []string) (map[string]*os.File, []string, error) {
	open := make(map[string]*os.File, len(md5s))
	var missing []string
	for _, md5 := range md5s {
		name, err := originals.FileName(md5)
		if err != nil {
			closeAll(open)
			return nil, nil, fmt.Errorf("document %q of the vector store: %w", md5, err)
		}
		f, err := os.Open(filepath.Join(files, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, md5)
		case err != nil:
			closeAll(open)
			return nil, nil, fmt.Errorf("open the original of %s: %w", md5, err)
		default:
			open[md5] = f
		}
	}
	return open, missing, nil
}

// deletedSince returns the MD5s of missing that the live store no longer
// holds: deleted after the snapshot, their originals with them.
func deletedSince(ctx context.Context, store string, missing []string) ([]string, error) {
	if len(missing) == 0 {
		return nil, nil
	}
	live, err := embedded.ReadContents(ctx, filepath.Join(store, embedded.DBName))
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, md5 := range missing {
		if _, found := slices.BinarySearch(live.Documents, md5); !found {
			deleted = append(deleted, md5)
		}
	}
	return deleted, nil
}

func closeAll(files map[string]*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// entryOf reads f whole for its size and SHA-256.
func entryOf(name string, f *os.File) (Entry, error) {
	st, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, st.Size())); err != nil {
		return Entry{}, fmt.Errorf("read %s: %w", name, err)
	}
	return Entry{Name: name, Size: st.Size(), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// writeArchive writes the tar file at name: the manifest, the database,
// the originals; each file's bytes are hashed again on the way and must
// be those of the manifest.
func writeArchive(name string, m Manifest, db *os.File, files map[string]*os.File) error {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	defer out.Close()
	buf := bufio.NewWriterSize(out, 1<<20)
	tw := tar.NewWriter(buf)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	manifest = append(manifest, '\n')
	if err := tw.WriteHeader(header(manifestName, int64(len(manifest)), m.CreatedAt)); err != nil {
		return err
	}
	if _, err := tw.Write(manifest); err != nil {
		return err
	}
	add := func(e Entry, f *os.File) error {
		if err := tw.WriteHeader(header(e.Name, e.Size, m.CreatedAt)); err != nil {
			return err
		}
		h := sha256.New()
		if _, err := io.Copy(io.MultiWriter(tw, h), io.NewSectionReader(f, 0, e.Size)); err != nil {
			return fmt.Errorf("write %s: %w", e.Name, err)
		}
		if hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
			return fmt.Errorf("%s changed while it was being backed up", e.Name)
		}
		return nil
	}
	if err := add(m.Database, db); err != nil {
		return err
	}
	for _, e := range m.Originals {
		md5 := strings.TrimSuffix(strings.TrimPrefix(e.Name, originalsDir), ".pdf")
		if err := add(e, files[md5]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	return out.Close()
}

func header(name string, size int64, mod time.Time) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o600, ModTime: mod, Format: tar.FormatPAX}
}

// Restore fills the two locations of to with the archive's data. It
// refuses, with an error wrapping ErrNotEmpty, a location that holds
// anything unless replace; and even then a store that a running
// docqa-service has open (embedded.ErrInUse).
//
// Everything is first written into new directories beside the targets
// and checked there: the manifest's format, every entry's size and
// SHA-256, no entry missing or unexpected, and the vector store opened as
// the service opens it (SQLite's quick_check and every row) holding
// exactly the manifest's documents, each with its original or listed
// without one. An archive that fails any check (ErrDamaged) leaves the
// targets untouched and nothing behind. Only then are the targets
// replaced by renames (the old ones are removed last; a failed rename
// puts them back).
func Restore(ctx context.Context, archive string, to Paths, replace bool) (Manifest, error) {
	if st, err := os.Stat(archive); err != nil {
		return Manifest{}, fmt.Errorf("no backup to restore: %w", err)
	} else if !st.Mode().IsRegular() {
		return Manifest{}, fmt.Errorf("no backup to restore: %s is not a file", archive)
	}
	if nested(to.Store, to.Files) {
		return Manifest{}, fmt.Errorf("the store's directory %s and the originals' %s must be two separate directories", to.Store, to.Files)
	}
	for _, target := range []string{to.Store, to.Files} {
		empty, err := isEmpty(target)
		if err != nil {
			return Manifest{}, err
		}
		if !empty && !replace {
			return Manifest{}, fmt.Errorf("%s is not empty (%w): restore fills empty locations only; pass --force to replace what is there",
				target, ErrNotEmpty)
		}
	}

	if replace {
		if err := embedded.EnsureUnused(ctx, to.Store); err != nil {
			return Manifest{}, err
		}
	}

	stores, err := stage(to.Store, 0o755)
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(stores) // gone already once it is to.Store
	filesStage, err := stage(to.Files, 0o700)
	if err != nil {
		return Manifest{}, err
	}
	defer os.RemoveAll(filesStage)

	m, err := unpack(archive, stores, filesStage)
	if err != nil {
		return Manifest{}, fmt.Errorf("backup %s is not usable, nothing was restored: %w", archive, err)
	}
	if err := checkStore(ctx, m, stores); err != nil {
		return Manifest{}, fmt.Errorf("backup %s is not usable, nothing was restored: %w: %w", archive, ErrDamaged, err)
	}
	if err := embedded.EnsureUnused(ctx, to.Store); err != nil { // it may have started meanwhile
		return Manifest{}, err
	}
	if err := swap([][2]string{{stores, to.Store}, {filesStage, to.Files}}); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// nested reports whether a and b are one directory or one holds the other.
func nested(a, b string) bool { return inside(a, b) || inside(b, a) }

// inside reports whether path is dir or lies under it.
func inside(path, dir string) bool {
	path, errP := filepath.Abs(path)
	dir, errD := filepath.Abs(dir)
	if errP != nil || errD != nil {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// isEmpty reports whether dir is absent or an empty directory.
func isEmpty(dir string) (bool, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	} else if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", dir, err)
	}
	return len(names) == 0, nil
}

// stage creates a new directory beside target, on its file system, so
// that a rename can put it in target's place.
func stage(target string, mode fs.FileMode) (string, error) {
	parent := filepath.Dir(filepath.Clean(target))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(target)+".restore-*")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, mode); err != nil {
		_ = os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// unpack reads the archive into the two directories, checking it entry by
// entry against its manifest. Errors wrap ErrDamaged.
func unpack(archive, storeDir, filesDir string) (Manifest, error) {
	f, err := os.Open(archive)
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	tr := tar.NewReader(bufio.NewReaderSize(f, 1<<20))
	damaged := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrDamaged, fmt.Sprintf(format, args...))
	}

	hdr, err := tr.Next()
	if err != nil {
		return Manifest{}, damaged("no manifest: %v", err)
	}
	if hdr.Name != manifestName || hdr.Typeflag != tar.TypeReg || hdr.Size > maxManifest {
		return Manifest{}, damaged("the first entry is %q, not %s", hdr.Name, manifestName)
	}
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(tr, hdr.Size)).Decode(&m); err != nil {
		return Manifest{}, damaged("%s: %v", manifestName, err)
	}
	if m.Format != Format {
		return Manifest{}, damaged("archive format %d; this docqa-service reads format %d", m.Format, Format)
	}
	want, err := expected(m)
	if err != nil {
		return Manifest{}, damaged("%s: %v", manifestName, err)
	}

	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Manifest{}, damaged("truncated or corrupt: %v", err)
		}
		e, ok := want[hdr.Name]
		if !ok {
			return Manifest{}, damaged("entry %q is not in the manifest, or twice in the archive", hdr.Name)
		}
		delete(want, hdr.Name)
		if hdr.Typeflag != tar.TypeReg || hdr.Size != e.Size {
			return Manifest{}, damaged("entry %s: a file of %d bytes in the archive, %d in the manifest", e.Name, hdr.Size, e.Size)
		}
		dst := filepath.Join(storeDir, embedded.DBName)
		if e.Name != m.Database.Name {
			dst = filepath.Join(filesDir, path.Base(e.Name))
		}
		if err := extract(tr, e, dst); err != nil {
			return Manifest{}, err
		}
	}
	if len(want) > 0 {
		names := make([]string, 0, len(want))
		for name := range want {
			names = append(names, name)
		}
		slices.Sort(names)
		return Manifest{}, damaged("truncated: %d entries of the manifest are missing (%s)", len(names), names[0])
	}
	for _, dir := range []string{storeDir, filesDir} {
		if err := atomicfile.SyncDir(dir); err != nil {
			return Manifest{}, err
		}
	}
	return m, nil
}

// expected checks the manifest's entries and returns them by name.
func expected(m Manifest) (map[string]Entry, error) {
	if m.Database.Name != embedded.DBName {
		return nil, fmt.Errorf("database entry %q, want %s", m.Database.Name, embedded.DBName)
	}
	want := map[string]Entry{m.Database.Name: m.Database}
	for _, e := range m.Originals {
		md5 := strings.TrimSuffix(strings.TrimPrefix(e.Name, originalsDir), ".pdf")
		if name, err := originals.FileName(md5); err != nil || e.Name != originalsDir+name {
			return nil, fmt.Errorf("original %q is not named originals/<md5>.pdf", e.Name)
		}
		if _, dup := want[e.Name]; dup {
			return nil, fmt.Errorf("original %s is listed twice", e.Name)
		}
		want[e.Name] = e
	}
	for _, e := range want {
		if e.Size < 0 || len(e.SHA256) != sha256.Size*2 {
			return nil, fmt.Errorf("entry %s: size %d, sha256 %q", e.Name, e.Size, e.SHA256)
		}
	}
	return want, nil
}

// extract writes the current entry of tr to dst, synced, and checks its
// SHA-256.
func extract(tr io.Reader, e Entry, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer out.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), tr)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: truncated in %s", ErrDamaged, e.Name)
		}
		return fmt.Errorf("write %s: %w", e.Name, err)
	}
	if n != e.Size || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
		return fmt.Errorf("%w: %s does not match its checksum in the manifest", ErrDamaged, e.Name)
	}
	if err := out.Sync(); err != nil {
		return err
	}
	return out.Close()
}

// checkStore opens the restored store as the service would and checks
// that it holds the manifest's documents, each with its original or
// listed without one.
func checkStore(ctx context.Context, m Manifest, dir string) error {
	s, err := embedded.Open(dir, nil)
	if err != nil {
		return err
	}
	docs, err := s.Documents(ctx)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	accounted := make(map[string]bool, len(docs))
	for _, e := range m.Originals {
		accounted[strings.TrimSuffix(strings.TrimPrefix(e.Name, originalsDir), ".pdf")] = true
	}
	for _, md5 := range m.WithoutOriginal {
		if accounted[md5] {
			return fmt.Errorf("document %s is listed with and without an original", md5)
		}
		accounted[md5] = true
	}
	if len(docs) != m.Documents || len(accounted) != len(docs) {
		return fmt.Errorf("the store holds %d documents; the manifest names %d, and %d with or without an original",
			len(docs), m.Documents, len(accounted))
	}
	for _, d := range docs {
		if !accounted[d.FileMD5] {
			return fmt.Errorf("document %s is in the store but not in the manifest", d.FileMD5)
		}
	}
	return atomicfile.SyncDir(dir)
}

// swap puts each staged directory in its target's place. A target that
// exists is first renamed aside; when a rename fails, the ones done are
// undone. The old directories are removed once every new one is in place.
func swap(moves [][2]string) error {
	type done struct{ staged, target, aside string }
	var finished []done
	undo := func() {
		for i := len(finished) - 1; i >= 0; i-- {
			d := finished[i]
			_ = os.Rename(d.target, d.staged)
			if d.aside != "" {
				_ = os.Rename(d.aside, d.target)
			}
		}
	}
	for _, mv := range moves {
		staged, target := mv[0], filepath.Clean(mv[1])
		aside := ""
		if _, err := os.Lstat(target); err == nil {
			aside = staged + ".old"
			if err := os.Rename(target, aside); err != nil {
				undo()
				return fmt.Errorf("move %s aside: %w", target, err)
			}
		}
		if err := os.Rename(staged, target); err != nil {
			if aside != "" {
				_ = os.Rename(aside, target)
			}
			undo()
			return fmt.Errorf("put the restored %s in place: %w", target, err)
		}
		finished = append(finished, done{staged, target, aside})
	}
	var errs []error
	for _, d := range finished {
		if d.aside != "" {
			if err := os.RemoveAll(d.aside); err != nil {
				errs = append(errs, fmt.Errorf("restored, but the old data is left in %s: %w", d.aside, err))
			}
		}
		errs = append(errs, atomicfile.SyncDir(filepath.Dir(d.target)))
	}
	return errors.Join(errs...)
}

// Package pagecache keeps rendered pages (and one-page PDFs) on disk, one
// file per key, bounded in bytes: when a new file would take the total past
// the bound, the least recently used files go first. The files survive a
// restart: Open reads the directory back, oldest modification first, and a
// hit touches its file, so the order of use survives too.
package pagecache

import (
	"container/list"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBytes bounds a cache when the configuration gives no bound:
// about 1 000 phone-sized pages (PNG of a text page at 1000 px: 60-250 KB).
const DefaultMaxBytes = 256 << 20

// keyPattern is what a key may be: a file name without any path.
var keyPattern = regexp.MustCompile(`^[0-9a-z][0-9a-z.-]{0,127}$`)

// tempPrefix marks a file being written; Open removes those left by a crash.
const tempPrefix = ".tmp-"

// Cache is safe for concurrent use; one process at a time may use a
// directory.
type Cache struct {
	dir string
	max int64

	mu    sync.Mutex
	size  int64
	order *list.List // of *entry, most recently used at the front
	byKey map[string]*list.Element
	now   func() time.Time
}

type entry struct {
	key  string
	size int64
}

// Open opens (creating it when absent) the cache in dir, bounded to
// maxBytes (DefaultMaxBytes when <= 0). Files already there are taken in
// by their modification time, and the oldest removed past the bound.
func Open(dir string, maxBytes int64) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("page cache: %w", err)
	}
	c := &Cache{dir: dir, max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}, now: time.Now}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("page cache: %w", err)
	}
	type found struct {
		key  string
		size int64
		mod  time.Time
	}
	var files []found
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tempPrefix) {
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		if !e.Type().IsRegular() || !keyPattern.MatchString(name) {
			continue // not the cache's: left alone
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, found{name, info.Size(), info.ModTime()})
	}
	slices.SortFunc(files, func(a, b found) int { return a.mod.Compare(b.mod) })
	for _, f := range files { // oldest first: the newest ends at the front
		c.byKey[f.key] = c.order.PushFront(&entry{f.key, f.size})
		c.size += f.size
	}
	c.mu.Lock()
	c.evictLocked()
	c.mu.Unlock()
	return c, nil
}

// ValidKey reports whether key can name a cached file.
func ValidKey(key string) bool { return keyPattern.MatchString(key) }

// Get returns the bytes kept under key, and marks them used now.
func (c *Cache) Get(key string) ([]byte, bool) {
	if !ValidKey(key) {
		return nil, false
	}
	c.mu.Lock()
	el, ok := c.byKey[key]
	if ok {
		c.order.MoveToFront(el)
	}
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	path := filepath.Join(c.dir, key)
	data, err := os.ReadFile(path)
	if err != nil {
		c.forget(key)
		return nil, false
	}
	now := c.now()
	_ = os.Chtimes(path, now, now) // the order of use, for the next Open
	return data, true
}

// Put keeps data under key (replacing what was there), then removes the
// least recently used files until the total is within the bound. Data
// larger than the bound is not kept.
func (c *Cache) Put(key string, data []byte) error {
	if !ValidKey(key) {
		return fmt.Errorf("page cache: invalid key %q", key)
	}
	if int64(len(data)) > c.max {
		return nil
	}
	f, err := os.CreateTemp(c.dir, tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("page cache: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(c.dir, key))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("page cache: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.size -= el.Value.(*entry).size
		c.order.Remove(el)
	}
	c.byKey[key] = c.order.PushFront(&entry{key, int64(len(data))})
	c.size += int64(len(data))
	c.evictLocked()
	return nil
}

// RemovePrefix removes every file whose key starts with prefix (a deleted
// document's pages).
func (c *Cache) RemovePrefix(prefix string) {
	c.mu.Lock()
	var keys []string
	for key := range c.byKey {
		if strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
	}
	c.mu.Unlock()
	for _, key := range keys {
		c.forget(key)
		_ = os.Remove(filepath.Join(c.dir, key))
	}
}

// Size is the bytes the cache holds now.
func (c *Cache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// MaxBytes is the cache's bound.
func (c *Cache) MaxBytes() int64 { return c.max }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.size -= el.Value.(*entry).size
		c.order.Remove(el)
		delete(c.byKey, key)
	}
}

// evictLocked removes the least recently used files until the total is
// within the bound. A file that cannot be removed is dropped from the
// count all the same (it is no longer served); the next Open counts it
// again.
func (c *Cache) evictLocked() {
	for c.size > c.max {
		el := c.order.Back()
		if el == nil {
			return
		}
		e := el.Value.(*entry)
		c.order.Remove(el)
		delete(c.byKey, e.key)
		c.size -= e.size
		if err := os.Remove(filepath.Join(c.dir, e.key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
	}
}

package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// racyWindow is how much older than the moment it was hashed a file's
// modification time must be for Finder to trust the hash while the file's
// size and modification time stay the same: a file rewritten within the
// file system's timestamp granularity of its hashing could otherwise keep
// a stale hash (the "racy git" problem).
const racyWindow = 2 * time.Second

// Finder discovers specs again and again (between rotations) at the cost
// of what changed: a file is read and hashed only when its size or
// modification time differ from the last time it was hashed, or when that
// hash was taken too soon after the file was written to be trusted. A
// folder is listed again at every Find, so an added or removed spec is
// always seen, unless Unchanged says nothing happened under it since the
// last one (ralph-ci's run asks its work tree's watcher): at 10,000 specs
// that walk made a rotation cost 4.25x what it costs at one spec, and
// 1.94x without it (bench/scale.sh 3 10000, SECTION=rotation). A Finder is
// not safe for concurrent use.
type Finder struct {
	Root    string
	Options Options
	// Unchanged, when set, tells that nothing under the spec folder dir
	// (as Options names it) changed since the last Find: its specs are
	// then the last walk's, not listed again (the engine asks its work
	// tree's watcher; at 10,000 specs the walk is most of a rotation's
	// cost, bench/scale.sh SECTION=rotation).
	Unchanged func(dir string) bool
	known     map[string]hashed   // by relative path
	byDir     map[string][]string // the specs each folder of Options.Dirs held, in walk order
	last      []Spec              // what the last Find returned, sorted; nil after a failure
	changed   bool
	// read is the content of the files the last walk read, by path,
	// until Contents hands it over.
	read map[string][]byte
}

// hashed is a spec as last read, and the file's stamp then.
type hashed struct {
	spec  Spec
	size  int64
	mtime time.Time
	at    time.Time // when it was read
}

// Find discovers the specs under f.Root, in the multi-spec order. It
// returns a *NoSpecsError when there are none. While nothing changed it
// returns the very slice it returned before: callers must not modify it.
func (f *Finder) Find() ([]Spec, error) {
	f.read = nil
	opts := f.Options
	prev := f.last
	quiet := f.quietDirs(prev)
	if prev != nil && f.promptSame() && !slices.Contains(quiet, false) {
		// Nothing to list or read again: the last result, without
		// rebuilding its index and slice (at 10,000 specs that copy was
		// a quarter of ralph-ci's own rotation cost, perf of bench/scale.sh).
		f.changed = false
		return prev, nil
	}
	f.last = nil
	next := make(map[string]hashed, len(f.known))
	specs := make([]Spec, 0, len(prev))
	same := true // every spec as last time, in the same order
	add := func(rel string, prompt bool, fi fs.FileInfo) error {
		if _, dup := next[rel]; dup {
			return nil
		}
		h, err := f.load(rel, prompt, fi)
		if err != nil {
			return err
		}
		next[rel] = h
		if n := len(specs); same && (n >= len(prev) || prev[n] != h.spec) {
			same = false
		}
		specs = append(specs, h.spec)
		return nil
	}
	if opts.Prompt != "" {
		p := filepath.Join(f.Root, filepath.FromSlash(opts.Prompt))
		fi, err := statIn(f.Root, p)
		if errors.Is(err, safefile.ErrLeavesTree) {
			return nil, fmt.Errorf("spec %s: %w", opts.Prompt, err)
		}
		if err == nil && fi.Mode().IsRegular() {
			if err := add(path.Clean(opts.Prompt), true, fi); err != nil {
				return nil, err
			}
		}
	}
	byDir := make(map[string][]string, len(opts.Dirs))
	for i, dir := range opts.Dirs {
		n := len(specs)
		if kept, ok := f.byDir[dir]; ok && quiet[i] {
			for _, rel := range kept {
				if _, dup := next[rel]; !dup {
					h := f.known[rel]
					next[rel] = h
					if k := len(specs); same && (k >= len(prev) || prev[k] != h.spec) {
						same = false
					}
					specs = append(specs, h.spec)
				}
			}
			byDir[dir] = kept
			continue
		}
		base := filepath.Join(f.Root, filepath.FromSlash(dir))
		relBase, err := filepath.Rel(f.Root, base)
		if err != nil {
			return nil, fmt.Errorf("discover specs in %s: %w", dir, err)
		}
		relBase = filepath.ToSlash(relBase)
		err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == base {
					return fs.SkipDir
				}
				return err
			}
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".spec.md") {
				return nil
			}
			rel, err := relTo(base, relBase, p)
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return fmt.Errorf("stat spec: %w", err)
			}
			return add(rel, false, fi)
		})
		if err != nil {
			return nil, fmt.Errorf("discover specs in %s: %w", dir, err)
		}
		for _, sp := range specs[n:] {
			byDir[dir] = append(byDir[dir], sp.Path)
		}
		if byDir[dir] == nil {
			byDir[dir] = []string{}
		}
	}
	f.known, f.byDir = next, byDir
	if len(specs) == 0 {
		f.changed = true
		return nil, &NoSpecsError{Options: opts}
	}
	f.changed = !same || len(specs) != len(prev)
	if f.changed {
		sort.SliceStable(specs, func(i, j int) bool { return Less(specs[i], specs[j]) })
		prev = specs
	}
	f.last = prev
	return f.last, nil
}

// quietDirs tells, for each folder of Options.Dirs, whether its specs are
// the last walk's: Unchanged says nothing happened under it, or it held
// none and is still not there (a spec folder inside .ralph, which the
// watcher does not follow, is most often absent). Unchanged is asked once
// a folder and Find: it answers "changed" only once for one change.
func (f *Finder) quietDirs(prev []Spec) []bool {
	quiet := make([]bool, len(f.Options.Dirs))
	if prev == nil || f.Unchanged == nil {
		return quiet
	}
	for i, dir := range f.Options.Dirs {
		kept, ok := f.byDir[dir]
		if !ok {
			continue
		}
		quiet[i] = f.Unchanged(dir)
		if !quiet[i] && len(kept) == 0 {
			_, err := os.Lstat(filepath.Join(f.Root, filepath.FromSlash(dir)))
			quiet[i] = errors.Is(err, fs.ErrNotExist)
		}
	}
	return quiet
}

// promptSame tells whether the prompt file (Options.Prompt) is as the
// last Find left it: absent then and now, or found with the same trusted
// stamp (as load would reuse its hash).
func (f *Finder) promptSame() bool {
	if f.Options.Prompt == "" {
		return true
	}
	rel := path.Clean(f.Options.Prompt)
	h, known := f.known[rel]
	fi, err := statIn(f.Root, filepath.Join(f.Root, filepath.FromSlash(f.Options.Prompt)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return !known
	case err != nil || !fi.Mode().IsRegular():
		return false
	}
	return known && h.spec.Prompt && h.size == fi.Size() && h.mtime.Equal(fi.ModTime()) && h.at.Sub(h.mtime) > racyWindow
}

// Changed tells whether the last Find found other specs, or other
// contents, than the one before it.
func (f *Finder) Changed() bool { return f.changed }

// Contents hands over what the last Find read to hash the files it had
// not seen as they are: their content by path, exactly the bytes their
// Hash was taken of (nil when it read none). The Finder keeps no copy, so
// that a caller reading the same files next (their front matter) reads
// each once and holds the content no longer than it needs it.
func (f *Finder) Contents() map[string][]byte {
	read := f.read
	f.read = nil
	return read
}

// relTo is the slash-separated path, relative to the root, of the file p
// found under base (the root joined with relBase), without filepath.Rel's
// cost for every file.
func relTo(base, relBase, p string) (string, error) {
	rest, ok := strings.CutPrefix(p, base)
	if !ok {
		return "", fmt.Errorf("discover specs: %s is not under %s", p, base)
	}
	return path.Join(relBase, filepath.ToSlash(rest)), nil
}

// load returns the spec at rel: the one hashed before when the file's
// stamp fi still matches it and that hash can be trusted, else read anew.
func (f *Finder) load(rel string, prompt bool, fi fs.FileInfo) (hashed, error) {
	if h, ok := f.known[rel]; ok && h.spec.Prompt == prompt && h.size == fi.Size() &&
		h.mtime.Equal(fi.ModTime()) && h.at.Sub(h.mtime) > racyWindow {
		return h, nil
	}
	at := time.Now()
	data, err := safefile.ReadIn(f.Root, filepath.Join(f.Root, filepath.FromSlash(rel)), safefile.SpecLimit)
	if err != nil {
		return hashed{}, fmt.Errorf("read spec: %w", err)
	}
	name := strings.TrimSuffix(path.Base(rel), ".md")
	if prompt {
		name = PromptName
	}
	sum := sha256.Sum256(data)
	if f.read == nil {
		f.read = map[string][]byte{}
	}
	f.read[rel] = data
	sp := Spec{Path: rel, Name: name, Key: KeyFor(name, rel), Hash: hex.EncodeToString(sum[:]), Prompt: prompt}
	return hashed{spec: sp, size: fi.Size(), mtime: fi.ModTime(), at: at}, nil
}

// statIn is os.Stat of p below root through no link that leads out of
// root (safefile.ErrLeavesTree).
func statIn(root, p string) (fs.FileInfo, error) {
	t, err := safefile.OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return t.Stat(p)
}

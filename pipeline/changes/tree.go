package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// ignoreFile is the file at the root that excludes paths outside git.
const ignoreFile = ".ralphignore"

// takeTree records every counted file under root with its blob id.
func takeTree(ctx context.Context, root string) (Snapshot, error) {
	ign, err := readIgnore(filepath.Join(root, ignoreFile))
	if err != nil {
		return Snapshot{}, err
	}
	if resolved, err := filepath.EvalSymlinks(root); err == nil {
		root = resolved // walk the directory even when root is a link to it
	}
	var paths []string
	err = filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			if full != root && errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walked
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if full == root {
			return nil
		}
		rel, err := filepath.Rel(root, full)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		skip := d.Name() == ".git" || rel == ralphDir || ign.ignored(rel, d.IsDir())
		switch {
		case d.IsDir() && skip:
			return filepath.SkipDir
		case skip || (!d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0):
			return nil
		}
		if !d.IsDir() {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("walk %s: %w", root, err)
	}
	files, err := hashFiles(ctx, root, formatSHA1, paths)
	if err != nil {
		return Snapshot{}, err
	}
	for p, id := range files {
		if id == "" { // removed between the walk and the hash
			delete(files, p)
		}
	}
	return Snapshot{Kind: KindTree, Files: files}, nil
}

// ignoreRule is one pattern line of a .ralphignore file.
type ignoreRule struct {
	negate   bool     // "!pattern": re-include
	dirOnly  bool     // "pattern/": match directories only
	anchored bool     // a "/" at the start or in the middle: match from the root
	segs     []string // the pattern split at "/"
}

// ignoreRules is a parsed .ralphignore; the last matching rule wins.
type ignoreRules []ignoreRule

// readIgnore parses the ignore file at name; a missing file ignores nothing.
func readIgnore(name string) (ignoreRules, error) {
	data, err := safefile.Read(name, safefile.ConfigLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parseIgnore(string(data)), nil
}

// parseIgnore parses gitignore syntax.
func parseIgnore(text string) ignoreRules {
	var rules ignoreRules
	for _, line := range strings.Split(text, "\n") {
		line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate, line = true, line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if p, ok := strings.CutSuffix(line, "/"); ok {
			r.dirOnly, line = true, p
		}
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		r.segs = strings.Split(strings.TrimPrefix(line, "/"), "/")
		for i, s := range r.segs { // fnmatch's [!...] is Go's [^...]
			r.segs[i] = strings.ReplaceAll(s, "[!", "[^")
		}
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// ignored reports whether the slash path rel (a directory when isDir) is
// excluded. The caller skips excluded directories, so their contents are never
// asked about, as in git.
func (rules ignoreRules) ignored(rel string, isDir bool) bool {
	ignored := false
	name := strings.Split(rel, "/")
	for _, r := range rules {
		if r.dirOnly && !isDir {
			continue
		}
		var ok bool
		if r.anchored {
			ok = matchSegs(r.segs, name)
		} else {
			ok = matchGlob(r.segs[0], name[len(name)-1])
		}
		if ok {
			ignored = !r.negate
		}
	}
	return ignored
}

// matchSegs matches path segments against pattern segments, where "**"
// matches any number of segments (at least one when it ends the pattern).
func matchSegs(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(name) > 0
		}
		for i := range len(name) + 1 {
			if matchSegs(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	return len(name) > 0 && matchGlob(pat[0], name[0]) && matchSegs(pat[1:], name[1:])
}

// matchGlob matches one segment; a malformed pattern matches nothing.
func matchGlob(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

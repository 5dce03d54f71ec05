package changes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// ignoreFile is the file at the root that excludes paths outside git.
const ignoreFile = ".ralphignore"

// takeTree records every counted file under root with its blob id.
func takeTree(ctx context.Context, root string) (Snapshot, error) {
	ign, err := readIgnore(root, filepath.Join(root, ignoreFile))
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

// ignoreRules is a parsed .ralphignore: go-git's gitignore matcher, where
// the last matching pattern wins.
type ignoreRules struct{ m gitignore.Matcher }

// readIgnore parses the ignore file at name, below root (through no link
// out of it); a missing file ignores nothing.
func readIgnore(root, name string) (ignoreRules, error) {
	data, err := safefile.ReadIn(root, name, safefile.ConfigLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return ignoreRules{}, nil
	} else if err != nil {
		return ignoreRules{}, fmt.Errorf("read %s: %w", name, err)
	}
	return parseIgnore(string(data)), nil
}

// parseIgnore parses gitignore syntax. Two patterns are put in the form
// go-git reads as git does: fnmatch's "[!...]" is Go's "[^...]", and a
// final "/**" matches everything inside a directory but not the directory
// itself, as "/*" does for a walk that skips excluded directories (go-git
// would exclude the directory too, so that a negated file in it could not
// come back).
func parseIgnore(text string) ignoreRules {
	var ps []gitignore.Pattern
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || line[0] == '#' {
			continue
		}
		line = strings.ReplaceAll(line, "[!", "[^")
		if p, ok := strings.CutSuffix(line, "/**"); ok {
			line = p + "/*"
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	return ignoreRules{gitignore.NewMatcher(ps)}
}

// ignored reports whether the slash path rel (a directory when isDir) is
// excluded. The caller skips excluded directories, so their contents are never
// asked about, as in git.
func (r ignoreRules) ignored(rel string, isDir bool) bool {
	return r.m != nil && r.m.Match(strings.Split(rel, "/"), isDir)
}

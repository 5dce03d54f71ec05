// Package gitstate reads, as data, the git states an agent can leave in a
// checkout's .git (a merge, rebase, cherry-pick, revert, am or bisect in
// progress, a lock on the index, HEAD detached, moved or on another
// branch, refs it created, moved or deleted), judges them against what
// the checkout held before the rotation, and puts the .git back.
//
// ralph-ci never commits through such a state: with --deliver commit it
// would conclude the agent's conflicted merge as a rotation commit, or
// commit conflict markers in the middle of its rebase. Read takes the
// files git itself keeps (HEAD, the refs, packed-refs, the markers of an
// operation in progress), never the agent's configuration, bounded and
// without following what the agent may have made a FIFO; Judge is a pure
// rule; Restore writes the files back.
package gitstate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Snapshot is what a checkout's .git says of its state.
type Snapshot struct {
	// Head is HEAD: the ref it names ("refs/heads/x") when Symbolic, else
	// the commit id it holds.
	Head     string
	Symbolic bool
	// Ops are the operations in progress (see ops), in their order there.
	Ops []string
	// Lock tells that index.lock exists.
	Lock bool
	// Refs are every ref under refs/ and its value (loose refs win over
	// packed-refs); a symbolic ref's value is "ref: <target>".
	Refs map[string]string
}

// Tip is the commit HEAD is at ("" on an unborn branch).
func (s Snapshot) Tip() string {
	if s.Symbolic {
		return s.Refs[s.Head]
	}
	return s.Head
}

// op is an operation git keeps in progress by a file (or folder) in the
// git directory.
type op struct{ name, file string }

// ops are the operations in progress git marks in the git directory; the
// files are what Restore removes.
var ops = []op{
	{"a merge", "MERGE_HEAD"},
	{"a rebase", "rebase-merge"},
	{"a rebase or git am", "rebase-apply"},
	{"a cherry-pick", "CHERRY_PICK_HEAD"},
	{"a revert", "REVERT_HEAD"},
	{"a cherry-pick or revert of several commits", "sequencer"},
	{"a bisect", "BISECT_START"},
	{"a bisect", "BISECT_LOG"},
}

// opLeftovers are the other files an operation leaves (removed with it).
var opLeftovers = []string{"MERGE_MSG", "MERGE_MODE", "MERGE_RR", "AUTO_MERGE", "BISECT_TERMS", "BISECT_NAMES", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_HEAD", "BISECT_FIRST_PARENT"}

// Bounds of what Read reads: refs and HEAD hold an id; packed-refs one
// line per ref.
const (
	refLimit    = 4 << 10
	packedLimit = 64 << 20
	maxRefs     = 100000
)

// Read reads the state of a checkout: gitDir holds its HEAD, index and
// operations in progress, commonDir its refs (gitDir, but for a linked
// worktree; see internal/git.Find).
func Read(gitDir, commonDir string) (Snapshot, error) {
	var s Snapshot
	head, err := safefile.Read(filepath.Join(gitDir, "HEAD"), refLimit)
	if err != nil {
		return s, fmt.Errorf("read the checkout's HEAD: %w", err)
	}
	v := strings.TrimSpace(string(head))
	if target, ok := strings.CutPrefix(v, "ref: "); ok {
		s.Head, s.Symbolic = target, true
	} else {
		s.Head = v
	}
	for _, o := range ops {
		if _, err := os.Lstat(filepath.Join(gitDir, o.file)); err == nil && !slices.Contains(s.Ops, o.name) {
			s.Ops = append(s.Ops, o.name)
		}
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "index.lock")); err == nil {
		s.Lock = true
	}
	if s.Refs, err = readRefs(commonDir); err != nil {
		return s, err
	}
	return s, nil
}

// readRefs reads packed-refs, then the loose refs under refs/ (which win).
func readRefs(gitDir string) (map[string]string, error) {
	refs := map[string]string{}
	packed, err := safefile.ReadOptional(filepath.Join(gitDir, "packed-refs"), packedLimit)
	if err != nil {
		return nil, fmt.Errorf("read the checkout's refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(packed))
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		if id, name, ok := strings.Cut(sc.Text(), " "); ok && strings.HasPrefix(name, "refs/") {
			refs[name] = id
		}
	}
	root := filepath.Join(gitDir, "refs")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		if len(refs) > maxRefs {
			return fmt.Errorf("more than %d refs", maxRefs)
		}
		rel, err := filepath.Rel(gitDir, p)
		if err != nil {
			return err
		}
		raw, err := safefile.Read(p, refLimit)
		if err != nil {
			refs[filepath.ToSlash(rel)] = "unreadable: " + err.Error()
			return nil
		}
		refs[filepath.ToSlash(rel)] = strings.TrimSpace(string(raw))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the checkout's refs: %w", err)
	}
	return refs, nil
}

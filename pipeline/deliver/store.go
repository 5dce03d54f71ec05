package deliver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// StateRefPrefix starts the ref that holds the loop's state of a branch.
const StateRefPrefix = "refs/ralph-ci/state/"

// StateRef is the ref holding the state of the loop working on branch.
func StateRef(branch string) string { return StateRefPrefix + branch }

// Saved are the parts of the state folder that outlive the job; logs,
// reports, the lock and the status word do not.
var saved = []string{"state.json", "guardrails.md", "handoffs", "progress"}

// stateFiles lists the saved files under the state folder dir, as paths
// relative to it with forward slashes.
func stateFiles(dir string) ([]string, error) {
	var out []string
	for _, name := range saved {
		root := filepath.Join(dir, name)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") { // temp files of atomic writes
				return nil
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list the state to save: %w", err)
		}
	}
	return out, nil
}

// clearState removes the saved files from the state folder dir.
func clearState(dir string) error {
	for _, name := range saved {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("clear the state folder: %w", err)
		}
	}
	return nil
}

// saveState writes the state folder dir as a commit whose tree holds it
// (under .ralph/) and whose first parent is described, the work commit the
// state describes; prev, the previous state commit, is the second parent.
// The files, trees and commit are written into the checkout's object
// store by ralph-ci itself, as one pack (igit.Store), with no git process:
// the push names the commit by its id. A delivery rotation runs no git
// process for its state (bench/delivery.sh). The pack holds them all and
// the raw commits of chain (the state commits this run pushed before, the
// history git push walks), so that no older pack is needed (RemovePack);
// raw is the commit's own.
func saveState(g Git, dir, described, prev, msg string, chain [][]byte) (commit string, raw []byte, pack string, err error) {
	files, err := stateFiles(dir)
	if err != nil {
		return "", nil, "", err
	}
	content := make(map[string][]byte, len(files))
	for _, f := range files {
		// Read here, bounded and non-blocking (.ralph is in the agent's
		// reach).
		b, err := safefile.ReadUnder(dir, filepath.Join(dir, filepath.FromSlash(f)), safefile.StateLimit)
		if err != nil {
			return "", nil, "", fmt.Errorf("save the state file %s: %w", f, err)
		}
		content[".ralph/"+f] = b
	}
	store, err := igit.OpenStore(g.Dir)
	if err != nil {
		return "", nil, "", fmt.Errorf("save the state: %w", err)
	}
	tree, err := store.Files(content)
	if err != nil {
		return "", nil, "", fmt.Errorf("save the state: %w", err)
	}
	id := DefaultIdentity
	var c bytes.Buffer
	fmt.Fprintf(&c, "tree %s\nparent %s\n", tree, described)
	if prev != "" {
		fmt.Fprintf(&c, "parent %s\n", prev)
	}
	who := fmt.Sprintf("%s <%s> %d +0000", id.Name, id.Email, time.Now().Unix())
	fmt.Fprintf(&c, "author %s\ncommitter %s\n\n%s", who, who, msg)
	if commit, err = store.Write("commit", c.Bytes()); err != nil {
		return "", nil, "", fmt.Errorf("save the state: %w", err)
	}
	for _, earlier := range chain {
		if _, err := store.Write("commit", earlier); err != nil {
			return "", nil, "", fmt.Errorf("save the state: %w", err)
		}
	}
	if pack, err = store.Flush(); err != nil {
		return "", nil, "", fmt.Errorf("save the state: %w", err)
	}
	return commit, c.Bytes(), pack, nil
}

// fetchState fetches the state ref (with the work commit it describes)
// and returns the state commit, "" when origin has none.
func fetchState(ctx context.Context, g Git, ref string) (string, error) {
	_, err := g.Run(ctx, "-c", "protocol.version=2", "fetch", "--no-tags", "--quiet", "--depth=2", "origin", "+"+ref+":"+ref)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
			_, _ = g.Run(ctx, "update-ref", "-d", ref)
			return "", nil
		}
		return "", fmt.Errorf("fetch the loop's state (%s): %w", ref, err)
	}
	id, _, err := g.revParse(ctx, ref)
	return id, err
}

// restoreState writes the state held by the state commit into the state
// folder dir, replacing what was there, and returns the work commit it
// describes.
func restoreState(ctx context.Context, g Git, dir, commit string) (string, error) {
	described, ok, err := g.revParse(ctx, commit+"^1")
	if err != nil || !ok {
		return "", fmt.Errorf("state commit %.12s describes no work commit: %v", commit, err)
	}
	out, err := g.Run(ctx, "ls-tree", "-r", "-z", "--full-tree", commit, "--", ".ralph/")
	if err != nil {
		return "", fmt.Errorf("read the state commit %.12s: %w", commit, err)
	}
	if err := clearState(dir); err != nil {
		return "", err
	}
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" {
			continue
		}
		rel := strings.TrimPrefix(path, ".ralph/")
		if !isSaved(rel) {
			continue // never write outside the saved parts
		}
		blob, err := g.RunInput(ctx, nil, "cat-file", "blob", f[2])
		if err != nil {
			return "", fmt.Errorf("read the state file %s: %w", rel, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := safefile.MkdirUnder(filepath.Dir(dir), filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := safefile.ReplaceUnder(dir, dst, 0o644, func(w io.Writer) error { _, err := w.Write(blob); return err }); err != nil {
			return "", fmt.Errorf("restore the state file: %w", err)
		}
	}
	return described, nil
}

// isSaved tells whether rel (relative to the state folder) is one of the
// saved parts and stays inside it.
func isSaved(rel string) bool {
	if rel == "" || strings.Contains("/"+rel+"/", "/../") || strings.HasPrefix(rel, "/") {
		return false
	}
	top, _, _ := strings.Cut(rel, "/")
	for _, s := range saved {
		if top == s {
			return true
		}
	}
	return false
}

// StateRead is the state ReadState found at a state ref.
type StateRead struct {
	Ref string
	// Binding names the state commit and the work commit it describes;
	// State is "" when the ref holds no state.
	Binding
	// Bound is true when ralph-ci's own status binds the state to its
	// work commit (IsBound; always with no Binder): only then was it
	// restored.
	Bound bool
}

// Found tells whether a state was found and restored.
func (r StateRead) Found() bool { return r.State != "" && r.Bound }

// ReadState fetches the state saved for branch and, when it is bound to
// the work commit it describes (IsBound with bd), restores it into the
// folder dst (not the project's .ralph). The merge gate uses it to judge
// the pull request's head from a fresh checkout.
func ReadState(ctx context.Context, g Git, bd Binder, branch, dst string) (StateRead, error) {
	r := StateRead{Ref: StateRef(branch)}
	commit, err := fetchState(ctx, g, r.Ref)
	if err != nil || commit == "" {
		return r, err
	}
	if r.Binding, r.Bound, err = checkBound(ctx, g, bd, r.Ref, branch, commit); err != nil || !r.Bound {
		return r, err
	}
	_, err = restoreState(ctx, g, dst, commit)
	return r, err
}

// checkBound reads which work commit the state commit at ref describes
// and whether ralph-ci bound it there (IsBound).
func checkBound(ctx context.Context, g Git, bd Binder, ref, branch, commit string) (Binding, bool, error) {
	b := Binding{Kind: kindOf(ref, branch), State: commit}
	described, ok, err := g.revParse(ctx, commit+"^1")
	if err != nil || !ok {
		return b, false, fmt.Errorf("state commit %.12s at %s describes no work commit: %v", commit, ref, err)
	}
	b.Described = described
	bound, err := IsBound(ctx, bd, b)
	return b, bound, err
}

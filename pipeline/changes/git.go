package changes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// errNotRepo means the root is not inside a git work tree.
var errNotRepo = errors.New("not a git repository")

// gitError is a failed git command (a *git.Error) that errors.Is finds
// as errNotRepo when git found no repository, or there is no git at all.
type gitError struct{ err *git.Error }

// Error is the git error's.
func (e gitError) Error() string { return e.err.Error() }

// Is makes errors.Is(err, errNotRepo) true when git found no repository.
func (e gitError) Is(target error) bool { return target == errNotRepo && e.err.NotRepo() }

// Unwrap returns the *git.Error.
func (e gitError) Unwrap() error { return e.err }

// gitRuns counts the git processes started, so that tests can tell that a
// Watcher's Take ran none.
var gitRuns atomic.Int64

// runGit runs git with args in dir through the doorway (internal/git) and
// returns its standard output. Optional locks are off, so that a status
// never writes the index under a concurrent git.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	gitRuns.Add(1)
	out, err := git.Command{Dir: dir, Args: args, Env: []string{"GIT_OPTIONAL_LOCKS=0"}}.Run(ctx)
	if err != nil {
		var ge *git.Error
		if errors.As(err, &ge) {
			return nil, gitError{ge}
		}
		return nil, err
	}
	return out, nil
}

// repo is what Take needs to know about the repository around a root.
type repo struct {
	prefix  string // root's path inside the work tree, "" or ending in "/"
	format  string // object format: sha1 or sha256
	ignored bool   // git ignores the root: nothing under it is a tracked file
	dotGit  bool   // root/.git existed when this was learnt
	// allUntracked is true when status.showUntrackedFiles is "all". Take asks
	// git status for the same untracked-files mode as the configuration, so
	// that it shares git's untracked cache when the repository has one.
	allUntracked bool
	// infoExclude is the repository's info/exclude file (absolute).
	infoExclude string
}

// repos caches repo per absolute root, so that Take needs no extra git
// process to find it on every rotation.
var repos sync.Map

// hasDotGit reports whether root/.git exists, so that a cached repo is
// learnt again when a repository is created or removed at the root.
func hasDotGit(root string) bool {
	_, err := os.Lstat(filepath.Join(root, ".git"))
	return err == nil
}

// lookupRepo returns the repository around root, or errNotRepo. The first
// lookup of a root runs two or three small git commands; later ones none.
func lookupRepo(ctx context.Context, root string) (repo, error) {
	dotGit := hasDotGit(root)
	if r, ok := repos.Load(root); ok && r.(repo).dotGit == dotGit {
		return r.(repo), nil
	}
	out, err := runGit(ctx, root, "rev-parse", "--show-prefix", "--show-object-format")
	if err != nil {
		return repo{}, fmt.Errorf("git rev-parse in %s: %w", root, err)
	}
	s := strings.TrimSuffix(string(out), "\n")
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return repo{}, fmt.Errorf("git rev-parse in %s: unexpected output %q", root, out)
	}
	r := repo{prefix: s[:i], format: s[i+1:], dotGit: dotGit}
	if r.prefix != "" {
		found, err := gitFinds(ctx, root, "check-ignore", "-q", ".")
		if err != nil {
			return repo{}, fmt.Errorf("git check-ignore in %s: %w", root, err)
		}
		r.ignored = found != ""
	}
	mode, err := gitFinds(ctx, root, "config", "--get", "status.showUntrackedFiles")
	if err != nil {
		return repo{}, fmt.Errorf("git config in %s: %w", root, err)
	}
	r.allUntracked = strings.TrimSpace(mode) == "all"
	out, err = runGit(ctx, root, "rev-parse", "--path-format=absolute", "--git-path", "info/exclude")
	if err != nil {
		return repo{}, fmt.Errorf("git rev-parse in %s: %w", root, err)
	}
	r.infoExclude = strings.TrimSuffix(string(out), "\n")
	repos.Store(root, r)
	return r, nil
}

// gitFinds runs a git command that exits with 1 when it finds nothing, and
// returns its output, "found" when it found something but printed nothing,
// or "" when it found nothing.
func gitFinds(ctx context.Context, root string, args ...string) (string, error) {
	out, err := runGit(ctx, root, args...)
	var exit *exec.ExitError
	switch {
	case err == nil && len(out) == 0:
		return "found", nil
	case err == nil:
		return string(out), nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return "", nil
	}
	return "", err
}

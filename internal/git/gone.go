package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// runPrefix starts the name of every git directory of ralph-ci's own that
// a live run holds (hold); sweepGone removes only folders named so, never
// one of an older ralph-ci (git-NNN), which holds no lock.
const runPrefix = "git-run-"

// errTaken: the folder is held by another process, or is gone.
var errTaken = errors.New("held by another run")

// makeHeldDir makes a git directory of ralph-ci's own in base and holds
// it for as long as this process lives (see hold). A sweep of another run
// can remove a new folder before it is held; then another is made.
func makeHeldDir(base string) (string, *os.File, error) {
	if !canHold {
		dir, err := os.MkdirTemp(base, runPrefix)
		return dir, nil, err
	}
	for range 8 {
		dir, err := os.MkdirTemp(base, runPrefix)
		if err != nil {
			return "", nil, err
		}
		f, err := hold(dir)
		if err == nil {
			return dir, f, nil
		}
		if !errors.Is(err, errTaken) {
			_ = os.RemoveAll(dir)
			return "", nil, fmt.Errorf("hold %s: %w", dir, err)
		}
	}
	return "", nil, fmt.Errorf("make a git directory in %s: each new one was taken by another run's sweep", base)
}

// sweepGone removes the git directories in base whose run is gone: a run
// killed with SIGKILL (or by the out-of-memory killer) never reaches
// Cleanup, and its folder would stay in /var/tmp/ralph-ci-UID for ever. A
// folder is a gone run's when its lock can be taken (hold); a live run's,
// or one this process cannot open, is left alone, so two runs at once
// never remove each other's. It returns the folders it removed.
func sweepGone(base string) []string {
	if !canHold {
		return nil
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runPrefix) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		f, err := hold(dir)
		if err != nil {
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
		_ = f.Close()
	}
	return removed
}

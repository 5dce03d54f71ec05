// Package livedir makes a run's folders in the temporary folder (an
// agent's HOME, a scratch folder) so that a later run can tell those of
// runs that are gone, and remove them, from those of runs that live: a
// live run holds a lock (flock) on its folder, which the kernel lets go
// when the run ends however it ends, whatever PID namespace it runs in
// (a container's runs share a host's temporary folder with PIDs the host
// does not see). A folder is named prefix + the run's PID + "-" + a
// random part; the PID is a second test, for a ralph-ci from before the
// lock, which holds none.
package livedir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Dir is a folder the run holds.
type Dir struct {
	// Path is the folder's path.
	Path string
	f    *os.File
}

// Make removes the folders of prefix that runs left (RemoveStale) and
// makes one for this run (mode 0700), held until Remove. The folder is
// held before it gets its name, so no other run's RemoveStale takes it
// for a gone run's.
func Make(prefix string) (*Dir, error) {
	RemoveStale(prefix)
	p, f, err := makeHeld(prefix + strconv.Itoa(os.Getpid()) + "-")
	if err != nil {
		return nil, err
	}
	return &Dir{Path: p, f: f}, nil
}

// Remove removes the folder and everything in it, and lets it go.
func (d *Dir) Remove() error {
	if d == nil || d.f == nil {
		return nil
	}
	d.f.Close() // first: a folder open cannot be removed everywhere
	d.f = nil
	return os.RemoveAll(d.Path)
}

// RemoveStale removes the folders of prefix in the temporary folder that
// no live run holds and whose PID is gone.
func RemoveStale(prefix string) {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		pid, _, ok2 := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !ok2 || err != nil || n <= 0 || !e.IsDir() || n == os.Getpid() {
			continue
		}
		if !gone(n) {
			continue // a live PID
		}
		p := filepath.Join(os.TempDir(), e.Name())
		if Held(p) {
			continue // a live run's, of another PID namespace
		}
		_ = os.RemoveAll(p)
	}
}

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The recovery mutex serialises the removal of stale locks (see
// removeIfUnchanged). It is held for a few milliseconds only. Where flock(2)
// is available (mutex_flock.go) it is an flock on the .ralph directory,
// which the kernel releases when the holder dies, so it can never go stale.
// Elsewhere, and on file systems without flock, it falls back to the
// sentinel file below.

// recoverSentinel is the sentinel file of the fallback recovery mutex.
const recoverSentinel = ".run.json.recover"

// Fallback timings, variables for tests.
var (
	// sentinelStaleAfter: a sentinel older than this was left by a process
	// that crashed during a recovery; it is removed.
	sentinelStaleAfter = 10 * time.Second
	// sentinelWait: how long to wait for the sentinel before giving up.
	sentinelWait = 30 * time.Second
)

// withSentinelMutex runs fn while holding the sentinel-file mutex: the
// sentinel is created with O_EXCL and removed afterwards. Removing a sentinel
// left by a crash is best-effort: two processes doing it at the same moment
// could both proceed; this needs a crash during a recovery plus two
// simultaneous starts, and only affects platforms without flock.
func withSentinelMutex(dir Dir, fn func() error) error {
	p := filepath.Join(string(dir), recoverSentinel)
	deadline := time.Now().Add(sentinelWait)
	for {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_ = f.Close()
			defer os.Remove(p)
			return fn()
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("acquire lock: create %s: %w", p, err)
		}
		if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > sentinelStaleAfter {
			_ = os.Remove(p)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("acquire lock: %s has existed for more than %s; if no ralph-ci is starting, delete it", p, sentinelWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

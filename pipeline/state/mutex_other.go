//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || illumos)

package state

// withRecoveryMutex runs fn while holding the recovery mutex; without flock
// (Windows, Solaris, AIX, ...) this is the sentinel-file fallback.
func withRecoveryMutex(dir Dir, fn func() error) error {
	return withSentinelMutex(dir, fn)
}

// lockDir takes no lock here: ok is false.
func lockDir(string, bool) (unlock func(), ok bool, err error) { return func() {}, false, nil }

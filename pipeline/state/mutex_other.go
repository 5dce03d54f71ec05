//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || illumos)

package state

// withRecoveryMutex runs fn while holding the recovery mutex; without flock
// (Windows, Solaris, AIX, ...) this is the sentinel-file fallback.
func withRecoveryMutex(dir Dir, fn func() error) error {
	return withSentinelMutex(dir, fn)
}

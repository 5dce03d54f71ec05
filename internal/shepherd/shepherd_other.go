//go:build !linux

package shepherd

// Works: only Linux has child subreapers; elsewhere the command's process
// group is all ralph-ci can stop.
const Works = false

// Main is never started here.
func Main([]string) int {
	say(Name + " works on Linux only")
	return 2
}

// AllowWrites does nothing: Landlock is Linux's.
func AllowWrites([]string) error { return nil }

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

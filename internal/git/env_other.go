//go:build !windows

package git

// systemPath is what git's PATH holds after git's own folder: the
// system's programs.
var systemPath = []string{"/usr/bin", "/bin"}

// systemEnv are the variables of the job's environment that git needs
// here besides keptEnv: none.
var systemEnv []string

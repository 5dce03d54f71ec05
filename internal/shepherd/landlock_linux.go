package shepherd

import (
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// writeRights are the Landlock rights AllowWrites handles: every way to
// change a file system (reads and execution are left alone).
const writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
	ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock |
	ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// AllowWrites keeps this process and everything it starts from changing
// the file system anywhere but below the paths of write (folders, or
// files such as /dev/null, which may then be written but not removed),
// with Landlock where the kernel has it (nothing happens elsewhere:
// LandlockABI tells; an older ABI holds what it knows). Reading and
// executing are left alone. A path that does not exist is left out.
// Without paths it does nothing.
func AllowWrites(write []string) error {
	if len(write) == 0 {
		return nil
	}
	var rules []landlock.Rule
	for _, p := range write {
		fi, err := os.Stat(p)
		switch {
		case err != nil: // gone, or not ours to see: nothing to grant
		case fi.IsDir():
			rules = append(rules, landlock.PathAccess(writeRights, p).IgnoreIfMissing())
		default: // a file (a device): only the rights a file has
			rules = append(rules, landlock.PathAccess(ll.AccessFSWriteFile|ll.AccessFSTruncate, p).IgnoreIfMissing())
		}
	}
	return landlock.Config{HandledAccessFS: writeRights}.BestEffort().RestrictPaths(rules...)
}

// LandlockABI is the Landlock ABI version the kernel offers, 0 when it
// has none (or it is off).
func LandlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

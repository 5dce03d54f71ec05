package shepherd

import (
	"bytes"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// writeRights are the Landlock rights DenyWrites handles: every way to
// change a file system (reads and execution are left alone).
const writeRights = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
	ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock |
	ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate

// DenyWrites keeps this process and everything it starts from writing in
// the folders deny (ralph-ci's own git directories), with Landlock where
// the kernel has it (nothing happens elsewhere: LandlockABI tells). Landlock
// grants, it cannot take away, so the grant is everything but those
// folders: every entry of each folder above them, except the one on the
// way down. New entries directly in those folders above (/, /var,
// /var/tmp for ralph-ci's) cannot be made either, so the folders denied
// must not be where commands make files (the temporary folder). The
// folders are absolute and clean, as ralph-ci gives them.
func DenyWrites(deny []string) error {
	if len(deny) == 0 {
		return nil
	}
	kept := map[string]bool{}  // the denied folders and every folder above them
	above := map[string]bool{} // the folders above them
	for _, d := range deny {
		kept[d] = true
		for p := d; parent(p) != p; {
			p = parent(p)
			kept[p], above[p] = true, true
		}
	}
	var dirs, files []string
	for p := range above {
		entries, err := os.ReadDir(p)
		if err != nil {
			continue // a denied folder that is gone, or one not readable
		}
		for _, e := range entries {
			full := p + "/" + e.Name()
			if p == "/" {
				full = "/" + e.Name()
			}
			switch {
			case kept[full]:
			case e.IsDir():
				dirs = append(dirs, full)
			default:
				files = append(files, full)
			}
		}
	}
	return landlock.Config{HandledAccessFS: writeRights}.BestEffort().RestrictPaths(
		landlock.PathAccess(writeRights, dirs...).IgnoreIfMissing(),
		landlock.PathAccess(ll.AccessFSWriteFile|ll.AccessFSTruncate, files...).IgnoreIfMissing(),
	)
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

// parent is the folder above the absolute, clean path p ("/" above "/").
// (Not path/filepath: see the package documentation on inits.)
func parent(p string) string {
	i := bytes.LastIndexByte([]byte(p), '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

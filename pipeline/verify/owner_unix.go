//go:build !windows

package verify

import (
	"os"
	"syscall"
)

// sameOwner gives dir the owner of the folder parent (the run's scratch
// folder, the agent's user's where it has one of its own); nothing for
// parent "" (the system's temporary folder).
func sameOwner(dir, parent string) error {
	if parent == "" {
		return nil
	}
	fi, err := os.Stat(parent)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return nil
	}
	return os.Chown(dir, int(st.Uid), int(st.Gid))
}

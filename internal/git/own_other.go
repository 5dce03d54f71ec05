//go:build !windows

package git

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// systemBases are the folders makeBase tries first: /var/tmp (outside
// what Landlock lets the agents change: see pipeline/agent.Writes), the
// temporary folder, /tmp and the user's cache folder.
func systemBases() []string {
	cache, _ := os.UserCacheDir()
	return []string{"/var/tmp", os.TempDir(), "/tmp", cache}
}

// ownName is the name of this user's folder of git directories:
// ralph-ci-UID.
func ownName() (string, error) { return "ralph-ci-" + strconv.Itoa(os.Getuid()), nil }

// ownFolder checks that dir is a folder (not a link) of this user's that
// no one else may enter.
func ownFolder(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || (ok && int(st.Uid) != os.Getuid()) {
		return fmt.Errorf("%s is not a folder of this user's that only it may enter", dir)
	}
	return nil
}

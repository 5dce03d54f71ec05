package agentuser

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// protectedHardlinks is the sysctl that keeps a user from hard-linking a
// file it does not own (Linux 3.6; 1 on every major distribution and on
// GitHub's runners).
const protectedHardlinks = "/proc/sys/fs/protected_hardlinks"

// hardlinksProtected reports an error when the sysctl at path is 0: the
// agent's user could then hard-link a root-only file (/etc/shadow) into
// the lent tree, where it is a regular file of the tree that no check of
// links can tell from the tree's own, and root's ralph-ci would read it
// (into a prompt, a report, the state). A sysctl that cannot be read
// (no /proc/sys in the container) is no error: the kernel's default,
// 1 since Linux 3.6 on the distributions, stands.
func hardlinksProtected(path string) error {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if string(bytes.TrimSpace(raw)) == "0" {
		return fmt.Errorf("fs.protected_hardlinks is 0 on this machine: the agent's user could hard-link a file it does not own (/etc/shadow) into the work tree, and ralph-ci, as root, would read it as a file of the tree; set it to 1 (sysctl -w fs.protected_hardlinks=1, the default of the distributions and of GitHub's runners), or run the agent as ralph-ci's own user (box: {user: off}, which costs the user of its own)")
	}
	return nil
}

//go:build unix

package e2e

import "golang.org/x/sys/unix"

// setDefaultACL sets folder p's default ACL (system.posix_acl_default).
func setDefaultACL(p string, acl []byte) error {
	return unix.Setxattr(p, "system.posix_acl_default", acl, 0)
}

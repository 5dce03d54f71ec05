//go:build !unix

package e2e

import "errors"

// setDefaultACL fails: there are no POSIX ACLs here (and no root, so
// ShareWithAgents never calls it).
func setDefaultACL(string, []byte) error { return errors.ErrUnsupported }

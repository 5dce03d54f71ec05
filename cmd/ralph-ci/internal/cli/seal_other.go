//go:build !linux

package cli

import "errors"

// Seal is Linux-only: elsewhere no /proc shows other processes'
// environments to the same user.
func Seal([]string) {}

// execSealed fails here (Relaunched never calls it: sudoroot.Receive is
// nil off Linux).
func execSealed(_, _, _ []string, _ map[string]string) error {
	return errors.New("sealing needs Linux")
}

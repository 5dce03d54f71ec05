//go:build !linux

package seal

import "errors"

// Seal is Linux-only: elsewhere no /proc shows other processes'
// environments to the same user.
func Seal([]string, func(string) bool) {}

// Exec fails here (a run as root through sudo, its one other caller,
// happens on Linux alone).
func Exec(_, _, _ []string, _ map[string]string) error {
	return errors.New("sealing needs Linux")
}

// NonDumpable is Linux-only.
func NonDumpable() {}

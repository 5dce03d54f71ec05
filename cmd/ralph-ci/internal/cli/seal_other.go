//go:build !linux

package cli

// Seal is Linux-only: elsewhere no /proc shows other processes'
// environments to the same user.
func Seal([]string) {}

//go:build !linux

package cli

// makeNonDumpable is Linux-only.
func makeNonDumpable() {}

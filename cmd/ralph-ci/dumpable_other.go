//go:build !linux

package main

// makeNonDumpable is Linux-only.
func makeNonDumpable() {}

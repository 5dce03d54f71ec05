//go:build !linux

package state

import "errors"

// exchange is not available here: writeFileOrdered renames instead.
func exchange(string, string) error { return errors.ErrUnsupported }

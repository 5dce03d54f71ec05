//go:build !linux

package discovery

import "errors"

// dirWatch is only available on Linux; elsewhere Finder stats every spec.
type dirWatch struct{}

func newDirWatch() (*dirWatch, error) { return nil, errors.New("no folder watch on this system") }

func (w *dirWatch) add(string) error { return nil }
func (w *dirWatch) changed() bool    { return true }
func (w *dirWatch) close() error     { return nil }

//go:build !linux

package netns

import (
	"errors"
	"net"
	"os/exec"
)

// Works: no network namespaces here.
const Works = false

// Box is a network box; there is none here.
type Box struct{}

// New fails: there are no network namespaces here.
func New() (*Box, net.Listener, error) {
	return nil, nil, errors.New("network namespaces need Linux")
}

// Start starts cmd.
func (b *Box) Start(cmd *exec.Cmd) error { return cmd.Start() }

// Close does nothing.
func (b *Box) Close() error { return nil }

// Catch fails: there is no box here.
func (b *Box) Catch(func(Escape)) error { return errors.New("network namespaces need Linux") }

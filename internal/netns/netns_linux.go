package netns

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// Works: Linux has network namespaces.
const Works = true

// Box is a network namespace holding only its loopback.
type Box struct {
	ns *os.File // the namespace, kept alive by this descriptor
}

// New makes the namespace, brings its loopback up and opens a TCP
// listener on 127.0.0.1 (a port of the kernel's choice) inside it. The
// work is done on an OS thread of its own that moves into the namespace
// and is then thrown away, so no other goroutine of ralph-ci ever runs in
// it.
func New() (*Box, net.Listener, error) {
	type made struct {
		ns  *os.File
		ln  net.Listener
		err error
	}
	ch := make(chan made, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- made{err: fmt.Errorf("making a network namespace: %w", err)}
			return
		}
		ns, err := os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
		if err != nil {
			ch <- made{err: fmt.Errorf("opening the network namespace: %w", err)}
			return
		}
		if err := loopbackUp(); err != nil {
			ns.Close()
			ch <- made{err: fmt.Errorf("bringing up the loopback of the network namespace: %w", err)}
			return
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			ns.Close()
			ch <- made{err: fmt.Errorf("listening in the network namespace: %w", err)}
			return
		}
		ch <- made{ns: ns, ln: ln}
	}()
	m := <-ch
	if m.err != nil {
		return nil, nil, m.err
	}
	return &Box{ns: m.ns}, m.ln, nil
}

// loopbackUp sets the IFF_UP flag of lo in the calling thread's network
// namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// Start starts cmd inside the namespace: it is forked from an OS thread
// that moved into it (and is thrown away afterwards), so the process and
// everything it starts are in the namespace from their first instruction.
// A nil Box starts cmd where ralph-ci is.
func (b *Box) Start(cmd *exec.Cmd) error {
	if b == nil {
		return cmd.Start()
	}
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := unix.Setns(int(b.ns.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- fmt.Errorf("entering the network namespace: %w", err)
			return
		}
		ch <- cmd.Start()
	}()
	return <-ch
}

// Close lets the namespace go once nothing else holds it (its listener
// and its processes).
func (b *Box) Close() error {
	if b == nil {
		return nil
	}
	return b.ns.Close()
}

package netns

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// Works: Linux has network namespaces.
const Works = true

// Box is a network namespace holding only its loopback, and the OS
// thread that lives in it and starts its processes.
type Box struct {
	jobs chan func()
	done chan struct{}
	// catch is what Catch started (nil before), ended by Close.
	catch  *catcher
	closed sync.Once
}

// New makes the namespace, brings its loopback up and opens a TCP
// listener on 127.0.0.1 (a port of the kernel's choice) inside it. An OS
// thread of its own moves into the namespace and stays there until
// Close, starting the box's processes; no other goroutine of ralph-ci
// ever runs in it. The thread lives as long as the box because a
// process's parent-death signal (the shepherd's) fires when the thread
// that started it ends, not the process.
func New() (*Box, net.Listener, error) {
	b := &Box{jobs: make(chan func()), done: make(chan struct{})}
	made := make(chan error, 1)
	var ln net.Listener
	go func() {
		defer close(b.done)
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			made <- fmt.Errorf("making a network namespace: %w", err)
			return
		}
		if err := loopbackUp(); err != nil {
			made <- fmt.Errorf("bringing up the loopback of the network namespace: %w", err)
			return
		}
		var err error
		if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			made <- fmt.Errorf("listening in the network namespace: %w", err)
			return
		}
		made <- nil
		for job := range b.jobs {
			job()
		}
	}()
	if err := <-made; err != nil {
		return nil, nil, err
	}
	return b, ln, nil
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

// Start starts cmd inside the namespace: it is forked from the box's
// thread, so the process and everything it starts are in the namespace
// from their first instruction. A nil Box starts cmd where ralph-ci is.
func (b *Box) Start(cmd *exec.Cmd) error {
	if b == nil {
		return cmd.Start()
	}
	var err error
	if !b.do(func() { err = cmd.Start() }) {
		return errors.New("the network box is closed")
	}
	return err
}

// do runs job on the box's thread (so in its namespace) and waits for
// it; false if the box is closed.
func (b *Box) do(job func()) bool {
	ran := make(chan struct{})
	select {
	case b.jobs <- func() { job(); close(ran) }:
		<-ran
		return true
	case <-b.done:
		return false
	}
}

// Close ends the box's thread and its catcher (after it told what it
// caught); the namespace goes once nothing else holds it (its listener,
// its processes). Processes the box started and that still run get
// their parent-death signal. A second Close does nothing.
func (b *Box) Close() error {
	if b == nil {
		return nil
	}
	b.closed.Do(func() {
		close(b.jobs)
		<-b.done
		b.catch.close()
	})
	return nil
}

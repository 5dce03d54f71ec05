package netns

import (
	"errors"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// A process started in the box reaches the listener ralph-ci opened in
// it, and not a listener on the machine's own loopback.
func TestBoxReachesOnlyItsListener(t *testing.T) {
	b, inside, err := New()
	if errors.Is(err, syscall.EPERM) {
		t.Skip("making a network namespace needs CAP_SYS_ADMIN:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer inside.Close()
	outside, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	accepted := make(chan string, 4)
	for _, ln := range []net.Listener{inside, outside} {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- ln.Addr().String()
				c.Close()
			}
		}()
	}
	connect := func(ln net.Listener) error {
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		cmd := exec.Command("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/"+port)
		if err := b.Start(cmd); err != nil {
			t.Fatal(err)
		}
		return cmd.Wait()
	}
	if err := connect(inside); err != nil {
		t.Errorf("the boxed process could not reach the box's listener: %v", err)
	} else if got := <-accepted; got != inside.Addr().String() {
		t.Errorf("accepted on %s", got)
	}
	if err := connect(outside); err == nil {
		t.Errorf("the boxed process reached the machine's loopback (%s)", outside.Addr())
	}
	// ralph-ci itself still reaches the machine's loopback.
	c, err := net.Dial("tcp4", outside.Addr().String())
	if err != nil {
		t.Fatalf("ralph-ci lost its own loopback: %v", err)
	}
	c.Close()
	if got := <-accepted; got != outside.Addr().String() {
		t.Errorf("accepted on %s", got)
	}
}

// A process the box started with a parent-death signal (as the shepherd
// is) lives on after Start returned: the signal fires when the thread that
// started it ends, and the box's thread lives until Close.
func TestBoxKeepsItsProcessesAlive(t *testing.T) {
	b, ln, err := New()
	if errors.Is(err, syscall.EPERM) {
		t.Skip("making a network namespace needs CAP_SYS_ADMIN:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer ln.Close()
	cmd := exec.Command("sh", "-c", "read line; exit 7")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(cmd); err != nil {
		t.Fatal(err)
	}
	runtime.GC() // give the runtime its chance to end idle threads
	in.Write([]byte("go on\n"))
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("the boxed process ended with %v, want exit status 7", err)
	}
}

package netns

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
)

// BenchmarkStart is the cost of starting a process in the box against
// starting it directly (the process is /bin/true, waited for): the box
// adds a hand-over to its thread, which the report's numbers put next to
// a rotation of a real CLI (seconds).
func BenchmarkStart(b *testing.B) {
	box, ln, err := New()
	if errors.Is(err, syscall.EPERM) {
		b.Skip("making a network namespace needs CAP_SYS_ADMIN:", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer box.Close()
	defer ln.Close()
	for _, bc := range []struct {
		name  string
		start func(*exec.Cmd) error
	}{{"direct", (*exec.Cmd).Start}, {"box", box.Start}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if err := bc.start(cmd); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNew is the cost of making the box (once per run): the
// namespace, its loopback up, the listener, and letting it go; "catch"
// adds the catcher (routes, DNS answerers, packet socket) and its close.
func BenchmarkNew(b *testing.B) {
	for _, catch := range []bool{false, true} {
		name := map[bool]string{false: "bare", true: "catch"}[catch]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				box, ln, err := New()
				if errors.Is(err, syscall.EPERM) {
					b.Skip("making a network namespace needs CAP_SYS_ADMIN:", err)
				}
				if err != nil {
					b.Fatal(err)
				}
				if catch {
					if err := box.Catch(func(Escape) {}); err != nil {
						b.Fatal(err)
					}
				}
				ln.Close()
				box.Close()
			}
		})
	}
}

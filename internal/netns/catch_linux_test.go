package netns

import (
	"errors"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A process in the box that ignores the proxy (looks a name up itself,
// connects to an address over TCP, sends a UDP datagram) fails at once,
// and the catcher tells each name and address:port; the box's listener
// still works.
func TestCatchTellsWhatEscapesTheProxy(t *testing.T) {
	b, ln, err := New()
	if errors.Is(err, syscall.EPERM) {
		t.Skip("making a network namespace needs CAP_SYS_ADMIN:", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	defer ln.Close()
	var mu sync.Mutex
	var told []Escape
	if err := b.Catch(func(e Escape) { mu.Lock(); told = append(told, e); mu.Unlock() }); err != nil {
		t.Fatal(err)
	}
	run := func(script string) error {
		cmd := exec.Command("bash", "-c", script)
		if err := b.Start(cmd); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := cmd.Wait()
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %s: a try past the proxy must fail fast", script, d)
		}
		return err
	}
	// The box's own listener (the proxy's) is still reached.
	if err := run("exec 3<>/dev/tcp/" + ln.Addr().String()[:len("127.0.0.1")] + "/" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)); err != nil {
		t.Errorf("the box's listener: %v", err)
	}
	for _, script := range []string{
		"getent ahosts Blocked.Example.test",
		"exec 3<>/dev/tcp/203.0.113.7/4444",
		"exec 3<>/dev/tcp/2001:db8::7/4445",
	} {
		if err := run(script); err == nil {
			t.Errorf("%s: got through", script)
		}
	}
	// A UDP datagram leaves the sender (nothing answers it) and is told.
	if err := run("echo hi > /dev/udp/198.51.100.9/5353"); err != nil {
		t.Errorf("UDP: %v", err)
	}
	want := []Escape{{"dns", "blocked.example.test"}, {"tcp", "203.0.113.7:4444"}, {"tcp", "[2001:db8::7]:4445"}, {"udp", "198.51.100.9:5353"}}
	b.Close() // tells what the catcher still holds
	mu.Lock()
	defer mu.Unlock()
	t.Logf("told %v", told)
	if len(told) > 5 { // the lookup is told for its A and its AAAA query
		t.Errorf("told more than was tried: %v", told)
	}
	for _, w := range want {
		if !slices.Contains(told, w) {
			t.Errorf("not told %v; told %v", w, told)
		}
	}
}

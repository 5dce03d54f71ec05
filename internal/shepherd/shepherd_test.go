package shepherd

import (
	"slices"
	"testing"
	"time"
)

// Args and parseArgs are inverse; Is recognises the shepherd by argv[0]'s
// base name only.
func TestArgs(t *testing.T) {
	args := Args(1500*time.Millisecond, []string{"/var/tmp/ralph-ci-1", "/x"}, []string{"/bin/sh", "-c", "-grace"})
	if !Is(args) || !Is([]string{"/usr/local/bin/" + Name}) || Is([]string{Name + "/ralph-ci"}) || Is(nil) {
		t.Errorf("Is is wrong for %q", args)
	}
	grace, write, argv, err := parseArgs(args[1:])
	if err != nil || grace != 1500*time.Millisecond || !slices.Equal(argv, []string{"/bin/sh", "-c", "-grace"}) || !slices.Equal(write, []string{"/var/tmp/ralph-ci-1", "/x"}) {
		t.Errorf("parseArgs(%q) = %v, %q, %q, %v", args[1:], grace, write, argv, err)
	}
	if _, write, argv, err := parseArgs(Args(time.Second, nil, []string{"x"})[1:]); err != nil || write != nil || !slices.Equal(argv, []string{"x"}) {
		t.Errorf("without -write: %q, %q, %v", write, argv, err)
	}
	for _, bad := range [][]string{nil, {"-grace", "1s", "--"}, {"-grace", "soon", "--", "x"}, {"-g", "1s", "--", "x"}, {"-grace", "1s", "-write", "--", "x"}} {
		if _, _, _, err := parseArgs(bad); err == nil {
			t.Errorf("parseArgs(%q) accepted", bad)
		}
	}
}

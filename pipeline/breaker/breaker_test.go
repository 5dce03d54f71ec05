package breaker

import "testing"

// The same failure twice, with what a run changes (durations, times,
// temporary paths, commit ids, line numbers), has one key; another test
// failing, or another layer, has another.
func TestKey(t *testing.T) {
	a := Key("external", "go test ./... failed: --- FAIL: TestAdd (0.02s)\n    add_test.go:12: got 3, want 4\nFAIL /tmp/go-build123/b001 at 2026-11-25T16:31:22Z, commit 4f0c2d8e91a3")
	for _, tc := range []struct {
		layer, reason string
		same          bool
	}{
		{"external", "go test ./... failed: --- FAIL: TestAdd (1.37s)\n    add_test.go:14: got 5, want 6\nFAIL /tmp/go-build987/b001 at 2026-11-26T09:02:11Z, commit 9e8d7c6b5a49", true},
		{"external", "go test ./... failed: --- FAIL: TestSub (0.02s)\n    add_test.go:12: got 3, want 4\nFAIL /tmp/go-build123/b001 at 2026-11-25T16:31:22Z, commit 4f0c2d8e91a3", false},
		{"signal", "go test ./... failed: --- FAIL: TestAdd (0.02s)\n    add_test.go:12: got 3, want 4\nFAIL /tmp/go-build123/b001 at 2026-11-25T16:31:22Z, commit 4f0c2d8e91a3", false},
	} {
		if got := Key(tc.layer, tc.reason) == a; got != tc.same {
			t.Errorf("%s %q: same key %v, want %v (normalised %q vs %q)", tc.layer, tc.reason, got, tc.same, Normalize(tc.reason), "")
		}
	}
}

func TestCount(t *testing.T) {
	n := 0
	prev := ""
	for i, tc := range []struct {
		key  string
		want int
	}{{"a", 1}, {"a", 2}, {"b", 1}, {"a", 1}, {"a", 2}, {"a", 3}} {
		n, prev = Count(prev, n, tc.key), tc.key
		if n != tc.want {
			t.Errorf("step %d (%s): count %d, want %d", i, tc.key, n, tc.want)
		}
	}
}

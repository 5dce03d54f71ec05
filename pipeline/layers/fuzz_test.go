package layers

import "testing"

// FuzzReviewSignal: any reviewer output is read without panic into
// REVIEW_PASS, REVIEW_FAIL or no signal, with its findings and path.
func FuzzReviewSignal(f *testing.F) {
	for _, s := range []string{"ok\nREVIEW_PASS", "## Feedback for Revision\n- fix x\nPATH: B\nREVIEW_FAIL", "", "\n\n", "review_fail."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		switch s := ReviewSignal(out); s {
		case "", "REVIEW_PASS", "REVIEW_FAIL":
		default:
			t.Fatalf("%q: signal %q", out, s)
		}
		_ = ReviewFindings(out)
		_ = PathB(out)
	})
}

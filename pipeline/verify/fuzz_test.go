package verify

import "testing"

// FuzzParseJudge: any judge answer is read without panic, as a verdict or
// an error, never both.
func FuzzParseJudge(f *testing.F) {
	for _, s := range []string{"VERIFIED", "**NOT_VERIFIED**: the total is wrong", "- verified\nNOT_VERIFIED", "not_verıfied: x", "", "VERIFIEDX"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		ok, reason, err := ParseJudge(answer)
		if err != nil && (ok || reason != "") {
			t.Fatalf("%q: verdict %v %q and error %v", answer, ok, reason, err)
		}
		if err == nil && !ok && reason == "" {
			t.Fatalf("%q: NOT_VERIFIED without a reason", answer)
		}
	})
}

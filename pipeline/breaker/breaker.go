// Package breaker is the rule that stops a spec whose claims keep being
// rejected for the same reason: the same layer, the same failing tests,
// the same verification output once what changes from run to run
// (numbers, times, paths, hex ids) is stripped. A different failure in
// between starts the count again.
package breaker

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/lazyregexp"
)

// What varies between two runs of the same failure, in the order they are
// replaced: a timestamp before the numbers in it, a path before the
// numbers in its name.
var (
	timeRE  = lazyregexp.New(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\b`)
	pathRE  = lazyregexp.New(`(?:[A-Za-z]:)?(?:\.{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*`)
	hexRE   = lazyregexp.New(`\b(?:0x)?[0-9a-fA-F]{7,}\b`)
	numRE   = lazyregexp.New(`\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h)?`)
	spaceRE = lazyregexp.New(`\s+`)
)

// maxReason bounds the text normalised: a reason is at most a few KiB,
// and a longer one is the same failure if its start is.
const maxReason = 16 << 10

// Normalize strips from a rejection's reason what differs between two
// runs of one failure.
func Normalize(reason string) string {
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	s := timeRE.ReplaceAllString(reason, "<time>")
	s = pathRE.ReplaceAllString(s, "<path>")
	s = hexRE.ReplaceAllString(s, "<id>")
	s = numRE.ReplaceAllString(s, "<n>")
	return strings.TrimSpace(spaceRE.ReplaceAllString(s, " "))
}

// Key identifies a rejection's reason: the layer that rejected the claim
// and its normalised reason, hashed to a short key for the state.
func Key(layer, reason string) string {
	sum := sha256.Sum256([]byte(layer + "\x00" + Normalize(reason)))
	return layer + ":" + hex.EncodeToString(sum[:8])
}

// Count is the rejections in a row for key, given the previous key and
// count: one more for the same key, 1 for another.
func Count(prevKey string, prevCount int, key string) int {
	if key == prevKey {
		return prevCount + 1
	}
	return 1
}

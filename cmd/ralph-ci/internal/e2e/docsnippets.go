package e2e

import (
	"regexp"
)

// Fence is a fenced code block of a markdown page: its info string and
// its text.
var Fence = regexp.MustCompile("(?ms)^```([a-z]*)[^\n]*\n(.*?)^```")

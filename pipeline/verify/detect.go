package verify

import (
	"path"
	"regexp"
	"sync"
)

// Detection is one runner's pattern by which code finds out that it runs
// under the runner ([Runner.Detect]).
type Detection struct {
	Runner string
	Re     *regexp.Regexp
}

// DetectionsOf lists the detection patterns of the runners whose test
// files share rel's extension ([Runner.TestFiles]): library code in rel
// that matches one behaves differently under test.
func DetectionsOf(rel string) []Detection {
	return detections()[path.Ext(rel)]
}

var detections = sync.OnceValue(func() map[string][]Detection {
	out := map[string][]Detection{}
	for _, r := range runners {
		if IsNone(r.Detect) || IsNone(r.TestFiles) {
			continue
		}
		exts := map[string]bool{}
		for _, f := range r.TestFiles {
			exts[path.Ext(f)] = true
		}
		for ext := range exts {
			for _, p := range r.Detect {
				out[ext] = append(out[ext], Detection{r.Name, regexp.MustCompile(p)})
			}
		}
	}
	return out
})

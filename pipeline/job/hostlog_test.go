package job

import (
	"strconv"
	"testing"
)

// Each host is named once; past maxNamed hosts, one line says no more
// are named, and nothing more is kept or said.
func TestHostLogNamesEachHostOnceAndABoundedNumber(t *testing.T) {
	var h hostLog
	for i := range 3 {
		if name, more := h.note("dns a.example"); name != (i == 0) || more {
			t.Fatalf("note %d of one host: name %v, no more %v", i, name, more)
		}
	}
	h = hostLog{}
	named, noMore := 0, 0
	for i := range 10 * maxNamed {
		for range 2 {
			name, more := h.note("dns h" + strconv.Itoa(i) + ".example")
			if name {
				named++
			}
			if more {
				noMore++
			}
		}
	}
	if named != maxNamed || noMore != 1 || len(h.named) != maxNamed {
		t.Errorf("named %d, said no more %d times, kept %d; want %d, 1, %d", named, noMore, len(h.named), maxNamed, maxNamed)
	}
	if name, _ := h.note("dns h0.example"); name {
		t.Error("a host named again past the bound")
	}
}

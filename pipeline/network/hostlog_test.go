package network

import (
	"slices"
	"strconv"
	"testing"
)

// Each host is named once; past maxNamed hosts, one line says no more
// are named, and nothing more is kept or said.
func TestHostLogNamesEachHostOnceAndABoundedNumber(t *testing.T) {
	var h hostLog
	for i := range 3 {
		if name, more := h.note("dns", "a.example"); name != (i == 0) || more {
			t.Fatalf("note %d of one host: name %v, no more %v", i, name, more)
		}
	}
	if name, _ := h.note("tcp", "a.example"); !name {
		t.Error("a host refused another way was not named")
	}
	h = hostLog{}
	named, noMore := 0, 0
	for i := range 10 * maxNamed {
		for range 2 {
			name, more := h.note("dns", "h"+strconv.Itoa(i)+".example")
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
	if name, _ := h.note("dns", "h0.example"); name {
		t.Error("a host named again past the bound")
	}
}

// A resolver that got "no such host" asks again with each search domain
// appended: that echo is not named; the same name asked first, or with
// a domain that is no search domain, is.
func TestHostLogSkipsSearchDomainEchoes(t *testing.T) {
	h := hostLog{search: searchDomains("# runner\nnameserver 127.0.0.53\noptions edns0\nsearch Abc.Internal.cloudapp.net. corp.example\n")}
	if want := []string{"abc.internal.cloudapp.net", "corp.example"}; !slices.Equal(h.search, want) {
		t.Fatalf("search domains %q, want %q", h.search, want)
	}
	for _, c := range []struct {
		host string
		name bool
	}{
		{"blocked.example.test", true},
		{"blocked.example.test.abc.internal.cloudapp.net", false},
		{"blocked.example.test.corp.example", false},
		{"other.abc.internal.cloudapp.net", true},
		{"blocked.example.test.elsewhere.example", true},
	} {
		if name, _ := h.note("dns", c.host); name != c.name {
			t.Errorf("%s: named %v, want %v", c.host, name, c.name)
		}
	}
	if got := searchDomains("domain x.example\nsearch\n"); !slices.Equal(got, []string{"x.example"}) {
		t.Errorf("domain line: %q", got)
	}
}
